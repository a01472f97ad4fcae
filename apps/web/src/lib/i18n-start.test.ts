// @vitest-environment jsdom
import { LANGUAGE_COOKIE } from "@hikaya/contracts/constants";
import { beforeEach, describe, expect, it, vi } from "vitest";

// i18n.ts decides its language when it loads: each test loads it afresh.
async function startI18n() {
  vi.resetModules();
  const i18n = await import("./i18n.ts");
  await i18n.initI18n();
  return i18n;
}

const cookieOf = () =>
  document.cookie
    .split("; ")
    .find((c) => c.startsWith(`${LANGUAGE_COOKIE}=`))
    ?.slice(LANGUAGE_COOKIE.length + 1);

describe("the language cookie the server reads for a screen's preloads", () => {
  beforeEach(() => {
    localStorage.clear();
    // biome-ignore lint/suspicious/noDocumentCookie: the test clears the one cookie the app writes
    document.cookie = `${LANGUAGE_COOKIE}=; path=/; max-age=0`;
  });

  it("is written at start from a choice kept before the cookie existed", async () => {
    const { LANGUAGE_STORAGE_KEY } = await import("./i18n.ts");
    localStorage.setItem(LANGUAGE_STORAGE_KEY, "en");
    expect(cookieOf()).toBeUndefined();
    const i18n = await startI18n();
    expect(i18n.currentLanguage()).toBe("en");
    expect(cookieOf()).toBe("en");
  });

  it("keeps a link's ?lng= as the person's choice: the next visit without it opens in that language", async () => {
    history.replaceState(null, "", "/login?lng=ar");
    try {
      expect((await startI18n()).currentLanguage()).toBe("ar");
      expect(cookieOf()).toBe("ar");
      history.replaceState(null, "", "/chats");
      expect(navigator.languages[0]).toMatch(/^en/);
      expect((await startI18n()).currentLanguage()).toBe("ar");
    } finally {
      history.replaceState(null, "", "/");
    }
  });

  it("is not written at start when the person never chose (the browser's language decides on both sides)", async () => {
    await startI18n();
    expect(cookieOf()).toBeUndefined();
  });
});
