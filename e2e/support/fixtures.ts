import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { test as base, expect, type Page } from "@playwright/test";

export type Lang = "en" | "ar";

/**
 * Per-test fixtures: the server's URL, the project's language, and a screenshot helper (of the test's default page,
 * or of `on`: a page of a context the test opened itself, which the default page would show blank).
 */
export const test = base.extend<{ lang: Lang; shot: (name: string, on?: Page) => Promise<void> }>({
  baseURL: async ({}, use) => {
    await use(process.env.E2E_BASE_URL);
  },
  lang: async ({}, use, testInfo) => {
    await use(testInfo.project.name === "ar" ? "ar" : "en");
  },
  page: async ({ page, lang }, use) => {
    // Pin the language the way a returning visitor's browser would (spec: cached in local storage).
    await page.addInitScript((l) => {
      if (!localStorage.getItem("i18nextLng")) localStorage.setItem("i18nextLng", l);
    }, lang);
    await use(page);
  },
  shot: async ({ page, lang }, use) => {
    const dir = resolve(import.meta.dirname, "..", "screenshots", lang);
    mkdirSync(dir, { recursive: true });
    await use(async (name, on = page) => {
      await on.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
    });
  },
});

export type { Page };
export { expect };
