// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { detectLanguage, type LanguageSources } from "./i18n.ts";

const none: LanguageSources = { search: "", cookie: "", local: null, session: null, browser: [], html: "" };
const detect = (sources: Partial<LanguageSources>) => detectLanguage({ ...none, ...sources });

describe("the language a first visit starts in (spec section 4)", () => {
  it("follows the query string, cookie, local storage, session storage, browser, html tag, else Arabic", () => {
    const all: LanguageSources = {
      search: "?lng=en",
      cookie: "theme=x; hikaya-lang=ar",
      local: "en",
      session: "ar",
      browser: ["en-GB"],
      html: "ar",
    };
    expect(detect(all)).toBe("en");
    expect(detect({ ...all, search: "" })).toBe("ar");
    expect(detect({ ...all, search: "", cookie: "" })).toBe("en");
    expect(detect({ ...all, search: "", cookie: "", local: null })).toBe("ar");
    expect(detect({ ...all, search: "", cookie: "", local: null, session: null })).toBe("en");
    expect(detect({ html: "en", browser: ["fr", "de"] })).toBe("en");
    expect(detect({ browser: ["fr", "de"] })).toBe("ar");
  });

  it("skips what names no language it has", () => {
    expect(detect({ search: "?lng=xx", cookie: "hikaya-lang=fr", local: "de", browser: ["fr-FR", "en-GB", "ar"] })).toBe("en");
    expect(detect({ browser: ["ar-EG", "en"] })).toBe("ar");
  });
});
