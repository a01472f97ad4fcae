/**
 * The country list of spec sections 3 and 9: code, English and Arabic names, dial code, and a flag
 * (an SVG from country-flag-icons, see components/country-flag.tsx). Jordan, Palestine and Israel are
 * pinned first (plus the United States in English), with an example phone format for those three.
 * Also the pure rules around identities: phone numbers read with a country's dial code (E.164) and
 * usernames mapped to e-mail identities.
 */
import { looksLikePhone, normalizeDigits, toE164, usernameToEmail } from "@hikaya/contracts";
import { COUNTRY_ROWS } from "./countries.data.ts";

// The identity rules live in contracts, so the server reads a script-less login form by them too.
export { looksLikePhone, toE164, usernameToEmail };

export type CountryLanguage = "en" | "ar";

export interface Country {
  /** ISO 3166-1 alpha-2, e.g. "JO". */
  code: string;
  name: string;
  nameAr: string;
  /** With the plus sign, e.g. "+962". */
  dialCode: string;
  /** A sample national mobile number, only for the pinned countries. */
  example?: string;
}

/** Example mobile numbers (libphonenumber-js's examples), written as people type them. */
const EXAMPLES: Record<string, string> = { JO: "7 9012 3456", PS: "59 912 3456", IL: "50 234 5678" };

export const PINNED = ["JO", "PS", "IL"] as const;
export const PINNED_EN = [...PINNED, "US"] as const;

export const COUNTRIES: readonly Country[] = COUNTRY_ROWS.map(([code, dial, name, nameAr]) => ({
  code,
  name,
  nameAr,
  dialCode: `+${dial}`,
  ...(EXAMPLES[code] ? { example: EXAMPLES[code] } : {}),
}));

const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]));

export function findCountry(code: string | null | undefined): Country | undefined {
  return code ? BY_CODE.get(code.toUpperCase()) : undefined;
}

/** Where several countries share a dial code, the one a stored "+1" or "+44" most likely means. */
const MAIN_FOR_DIAL: Record<string, string> = { "+1": "US", "+7": "RU", "+44": "GB", "+61": "AU", "+212": "MA", "+290": "SH" };

/** A stored country, as an ISO code ("JO") or a dial code ("+962", "962"), as a list entry. */
export function findCountryByCode(value: string | null | undefined): Country | undefined {
  const v = value?.trim() ?? "";
  if (/^[A-Za-z]{2}$/.test(v)) return findCountry(v);
  const digits = /^\+?(\d{1,4})$/.exec(v)?.[1];
  if (!digits) return undefined;
  const dial = `+${digits}`;
  const preferred = MAIN_FOR_DIAL[dial] ?? PINNED.find((code) => BY_CODE.get(code)?.dialCode === dial);
  return (preferred ? BY_CODE.get(preferred) : undefined) ?? COUNTRIES.find((c) => c.dialCode === dial);
}

export function countryName(country: Country, language: CountryLanguage): string {
  return language === "ar" ? country.nameAr : country.name;
}

export function pinnedCodes(language: CountryLanguage): readonly string[] {
  return language === "en" ? PINNED_EN : PINNED;
}

/** The list as shown: pinned countries first, then the rest alphabetically in the person's language. */
export function orderedCountries(language: CountryLanguage): Country[] {
  const pinned = pinnedCodes(language);
  const head = pinned.map((code) => BY_CODE.get(code)).filter((c): c is Country => Boolean(c));
  const collator = new Intl.Collator(language);
  const rest = COUNTRIES.filter((c) => !pinned.includes(c.code)).sort((a, b) =>
    collator.compare(countryName(a, language), countryName(b, language)),
  );
  return [...head, ...rest];
}

/** Arabic letters that are written several ways, folded so a search finds them however typed. */
function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f\u064b-\u065f\u0670]/g, "")
    .replace(/[أإآٱ]/g, "ا")
    .replace(/ى/g, "ي")
    .replace(/ة/g, "ه")
    .toLowerCase()
    .trim();
}

/** Matches by name in either language, code or dial code ("jo", "الأردن", "962", "+962"). */
export function searchCountries(list: readonly Country[], query: string): Country[] {
  const q = fold(query);
  if (!q) return [...list];
  const digits = q.replace(/^\+/, "");
  return list.filter(
    (c) =>
      fold(c.name).includes(q) ||
      fold(c.nameAr).includes(q) ||
      c.code.toLowerCase() === q ||
      (/^\d+$/.test(digits) && c.dialCode.slice(1).startsWith(digits)),
  );
}

/** The part of an E.164 number after the country's dial code, for forms that send them apart. */
export function nationalPart(e164: string, country: Pick<Country, "dialCode">): string {
  return e164.startsWith(country.dialCode) ? e164.slice(country.dialCode.length) : e164.replace(/^\+/, "");
}

const TIME_ZONE_COUNTRY: Record<string, string> = {
  "Asia/Amman": "JO",
  "Asia/Gaza": "PS",
  "Asia/Hebron": "PS",
  "Asia/Jerusalem": "IL",
  "Asia/Tel_Aviv": "IL",
  "Asia/Beirut": "LB",
  "Asia/Damascus": "SY",
  "Asia/Baghdad": "IQ",
  "Asia/Riyadh": "SA",
  "Asia/Dubai": "AE",
  "Asia/Kuwait": "KW",
  "Asia/Qatar": "QA",
  "Asia/Bahrain": "BH",
  "Asia/Muscat": "OM",
  "Asia/Aden": "YE",
  "Africa/Cairo": "EG",
  "Africa/Tripoli": "LY",
  "Africa/Tunis": "TN",
  "Africa/Algiers": "DZ",
  "Africa/Casablanca": "MA",
  "Africa/Khartoum": "SD",
  "Europe/London": "GB",
  "Europe/Berlin": "DE",
  "Europe/Paris": "FR",
  "Europe/Istanbul": "TR",
  "America/Toronto": "CA",
  "America/Vancouver": "CA",
  "Australia/Sydney": "AU",
};

/**
 * The browser's best guess at where the visitor is, used when the server knows nothing: the time
 * zone first (it follows the device's location), then the region of the browser's languages.
 */
export function guessCountryFromBrowser(timeZone: string | undefined, languages: readonly string[]): string | null {
  if (timeZone) {
    const fromZone = TIME_ZONE_COUNTRY[timeZone];
    if (fromZone) return fromZone;
    if (/^America\/(New_York|Chicago|Denver|Los_Angeles|Phoenix|Anchorage|Detroit|Indiana|Kentucky|Boise)/.test(timeZone))
      return "US";
  }
  for (const language of languages) {
    const region = language.split(/[-_]/)[1];
    if (region && /^[A-Za-z]{2}$/.test(region) && findCountry(region)) return region.toUpperCase();
  }
  return null;
}

const DIAL_CODES = [...new Set(COUNTRIES.map((c) => c.dialCode))].sort((a, b) => b.length - a.length);

/**
 * A phone number in international form with its dial code set apart ("+966 501234567"), as the console shows
 * people: from the stored E.164 login phone, or else from a profile's country (dial or ISO code) and national number.
 */
export function internationalPhone(
  e164: string | null | undefined,
  countryCode?: string | null,
  national?: string | null,
): string | null {
  let full = e164 || null;
  if (!full && national) {
    const digits = normalizeDigits(national);
    const country = findCountryByCode(countryCode);
    if (digits.startsWith("+")) full = digits;
    else if (country) full = `${country.dialCode}${digits.replace(/^0+/, "")}`;
    else return digits;
  }
  if (!full) return null;
  const dial = DIAL_CODES.find((d) => full.startsWith(d));
  return dial ? `${dial} ${full.slice(dial.length)}` : full;
}
