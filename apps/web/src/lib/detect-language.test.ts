// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { detectLanguage, LANGUAGE_STORAGE_KEY } from "./i18n.ts";

describe("the language a first visit starts in", () => {
  afterEach(() => localStorage.clear());

  it("follows ?lng= first, then the person's last choice, then the browser, else Arabic", () => {
    expect(detectLanguage("?lng=en", ["ar"])).toBe("en");
    localStorage.setItem(LANGUAGE_STORAGE_KEY, "en");
    expect(detectLanguage("", ["ar-JO"])).toBe("en");
    expect(detectLanguage("?lng=ar", ["en"])).toBe("ar");
    localStorage.clear();
    expect(detectLanguage("", ["fr-FR", "en-GB", "ar"])).toBe("en");
    expect(detectLanguage("", ["ar-EG", "en"])).toBe("ar");
    expect(detectLanguage("", ["fr", "de"])).toBe("ar");
    expect(detectLanguage("?lng=xx", [])).toBe("ar");
  });
});
