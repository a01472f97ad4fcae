import { describe, expect, it } from "vitest";
import { buildCountryRows } from "../../scripts/country-rows.ts";
import { COUNTRY_ROWS } from "./countries.data.ts";
import {
  COUNTRIES,
  findCountry,
  findCountryByCode,
  guessCountryFromBrowser,
  internationalPhone,
  looksLikePhone,
  orderedCountries,
  searchCountries,
  toE164,
  usernameToEmail,
} from "./countries.ts";

describe("country list", () => {
  it("matches i18n-iso-countries and libphonenumber-js (regenerate with scripts/generate-countries.ts)", async () => {
    expect(COUNTRY_ROWS).toEqual(await buildCountryRows());
  });

  it("has about 200 countries, each with both names and a dial code", () => {
    expect(COUNTRIES.length).toBeGreaterThan(190);
    for (const c of COUNTRIES) {
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(c.dialCode).toMatch(/^\+\d{1,4}$/);
      expect(c.name.length).toBeGreaterThan(1);
      expect(c.nameAr).toMatch(/[\u0600-\u06ff]/);
    }
    expect(findCountry("jo")).toMatchObject({ name: "Jordan", nameAr: "الأردن", dialCode: "+962" });
    expect(findCountry("PS")).toMatchObject({ name: "Palestine", dialCode: "+970" });
  });

  it("pins Jordan, Palestine and Israel first, plus the United States in English", () => {
    expect(
      orderedCountries("en")
        .slice(0, 4)
        .map((c) => c.code),
    ).toEqual(["JO", "PS", "IL", "US"]);
    const ar = orderedCountries("ar");
    expect(ar.slice(0, 3).map((c) => c.code)).toEqual(["JO", "PS", "IL"]);
    expect(ar[3]?.code).not.toBe("US");
    expect(ar.filter((c) => c.code === "US")).toHaveLength(1);
    expect(new Set(ar.map((c) => c.code)).size).toBe(COUNTRIES.length);
  });

  it("reads stored country codes, ISO or dial code", () => {
    expect(findCountryByCode("JO")?.code).toBe("JO");
    expect(findCountryByCode("+962")?.code).toBe("JO");
    expect(findCountryByCode("970")?.code).toBe("PS");
    expect(findCountryByCode("+1")?.code).toBe("US");
    expect(findCountryByCode("+44")?.code).toBe("GB");
    expect(findCountryByCode("+20")?.code).toBe("EG");
    expect(findCountryByCode("Jordan")).toBeUndefined();
    expect(findCountryByCode(null)).toBeUndefined();
  });

  it("gives an example phone format for the three pinned countries", () => {
    for (const code of ["JO", "PS", "IL"]) {
      const c = findCountry(code);
      expect(c?.example).toBeTruthy();
      expect(toE164(c?.example ?? "", c)).toMatch(/^\+\d{11,12}$/);
    }
  });

  it("sorts the rest by the language's own alphabet", () => {
    const ar = orderedCountries("ar").slice(3);
    const names = ar.map((c) => c.nameAr);
    expect(names).toEqual([...names].sort(new Intl.Collator("ar").compare));
  });

  it("searches by name in either language, code and dial code", () => {
    const all = orderedCountries("en");
    expect(searchCountries(all, "jord").map((c) => c.code)).toEqual(["JO"]);
    expect(searchCountries(all, "الاردن").map((c) => c.code)).toEqual(["JO"]);
    expect(searchCountries(all, "فلسطين").map((c) => c.code)).toEqual(["PS"]);
    expect(searchCountries(all, "+972").map((c) => c.code)).toContain("IL");
    expect(searchCountries(all, "us").map((c) => c.code)).toContain("US");
    expect(searchCountries(all, "   ")).toHaveLength(all.length);
    expect(searchCountries(all, "zzzz")).toEqual([]);
  });
});

describe("phone numbers", () => {
  const jordan = findCountry("JO");

  it("reads a national number with the selected country's dial code", () => {
    expect(toE164("079 012 3456", jordan)).toBe("+962790123456");
    expect(toE164("790123456", jordan)).toBe("+962790123456");
    expect(toE164("(079) 012-3456", jordan)).toBe("+962790123456");
  });

  it("keeps a number's own code when written with + or 00, or with the dial code", () => {
    expect(toE164("+970 599 123 456", jordan)).toBe("+970599123456");
    expect(toE164("00972502345678", jordan)).toBe("+972502345678");
    expect(toE164("962790123456", jordan)).toBe("+962790123456");
  });

  it("accepts Arabic-Indic and Eastern Arabic-Indic digits, spaces and dashes", () => {
    expect(toE164("٠٧٩٠١٢٣٤٥٦", jordan)).toBe("+962790123456");
    expect(toE164("۰۷۹-۰۱۲-۳۴۵۶", jordan)).toBe("+962790123456");
    expect(toE164("٠٧٩ ٠١٢ ٣٤٥٦", jordan)).toBe("+962790123456");
    expect(looksLikePhone("٠٧٩٢٦٧٢٠٩٩")).toBe(true);
    expect(looksLikePhone("۰۷۹۲۶۷۲۰۹۹")).toBe(true);
  });

  it("refuses what cannot be a phone number", () => {
    expect(toE164("12", jordan)).toBeNull();
    expect(toE164("hello", jordan)).toBeNull();
    expect(toE164("0790123456", undefined)).toBeNull();
    expect(toE164("+1234567890123456", jordan)).toBeNull();
  });

  it("tells phone numbers from usernames", () => {
    expect(looksLikePhone("0790123456")).toBe(true);
    expect(looksLikePhone("+962 79 012 3456")).toBe(true);
    expect(looksLikePhone("sara")).toBe(false);
    expect(looksLikePhone("sara2024")).toBe(false);
    expect(looksLikePhone("12345")).toBe(false);
  });
});

describe("phone numbers in the console", () => {
  it("shows them in international form with the dial code set apart, from E.164 or a profile's parts", () => {
    expect(internationalPhone("+966501234567")).toBe("+966 501234567");
    expect(internationalPhone("+12025550123")).toBe("+1 2025550123");
    expect(internationalPhone(null, "+966", "0501234567")).toBe("+966 501234567");
    expect(internationalPhone(null, "JO", "790000001")).toBe("+962 790000001");
    expect(internationalPhone(null, "JO", "+962790000001")).toBe("+962 790000001");
    expect(internationalPhone(null, null, "0501234567")).toBe("0501234567");
    expect(internationalPhone(null, "SA", null)).toBeNull();
  });
});

describe("usernames", () => {
  it("appends the product domain to a username without '@'", () => {
    expect(usernameToEmail("Sara", "users.hikaya.app")).toBe("sara@users.hikaya.app");
    expect(usernameToEmail("  omar.k ", "users.hikaya.app")).toBe("omar.k@users.hikaya.app");
  });

  it("keeps e-mail addresses as typed", () => {
    expect(usernameToEmail("Admin@Hikaya.test", "users.hikaya.app")).toBe("admin@hikaya.test");
  });
});

describe("guessing the visitor's country", () => {
  it("uses the time zone first", () => {
    expect(guessCountryFromBrowser("Asia/Amman", ["en-US"])).toBe("JO");
    expect(guessCountryFromBrowser("Asia/Hebron", [])).toBe("PS");
    expect(guessCountryFromBrowser("America/Chicago", [])).toBe("US");
  });

  it("falls back to the browser languages' region", () => {
    expect(guessCountryFromBrowser("UTC", ["ar", "ar-JO"])).toBe("JO");
    expect(guessCountryFromBrowser(undefined, ["en-GB"])).toBe("GB");
    expect(guessCountryFromBrowser("UTC", ["ar", "en"])).toBeNull();
  });
});
