import { type APIRequestContext, request as playwrightRequest } from "@playwright/test";
import { createUser, Journey, signIn, stories } from "../pages/journey.ts";
import { expect, type Page, test } from "../support/fixtures.ts";

/**
 * What a first screen needs is asked for with the page, not after the screen's own code (issue 15): the site
 * settings by the HTML, the signed-in home's story list and first thumbnail by the entry script. Each is held or
 * watched at the network, in both languages.
 */

let request: APIRequestContext;
test.beforeAll(async () => {
  request = await playwrightRequest.newContext({ baseURL: process.env.E2E_BASE_URL });
});
test.afterAll(async () => request.dispose());

/** Every request the page makes, as path and query. */
function watchRequests(page: Page): string[] {
  const asked: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    asked.push(url.pathname + url.search);
  });
  return asked;
}

/** Holds the responses of the files `pattern` names until `release()`. */
async function hold(page: Page, pattern: RegExp) {
  let release: () => void = () => {};
  const held = new Promise<void>((ok) => {
    release = ok;
  });
  await page.route(pattern, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

test("the site settings are asked for by the HTML, before the entry script has run, and once", async ({ page, lang }) => {
  const asked = watchRequests(page);
  const release = await hold(page, /\/assets\/index-[\w-]+\.js$/);
  await page.goto("/login", { waitUntil: "commit" });
  await expect.poll(() => asked).toContain("/api/settings");
  release();
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
  await expect(page.getByRole("button", { name: /./ }).first()).toBeVisible();
  expect(asked.filter((path) => path === "/api/settings")).toHaveLength(1);
});

test("the signed-in home's list and first thumbnail are on their way before the home's code arrives, and asked for once", async ({
  page,
  lang,
}) => {
  const user = await createUser(request);
  const first = (await stories(request, user))[0]?.id ?? "";
  const thumbnail = `/storage/v1/object/public/thumbnails/${first}${lang === "ar" ? "-ar" : ""}`;
  const j = new Journey(page, lang);
  await signIn(page, user);
  const asked = watchRequests(page);
  const release = await hold(page, /\/assets\/home-page-[\w-]+\.js$/);
  await page.goto("/", { waitUntil: "commit" });
  await expect.poll(() => asked).toEqual(expect.arrayContaining([`/api/stories?lang=${lang}`, thumbnail]));
  await expect(page.locator(".story-card")).toHaveCount(0);
  release();
  const image = j.card(1).locator("img");
  await expect(image).toHaveAttribute("src", thumbnail);
  await expect(image).toHaveAttribute("fetchpriority", "high");
  await expect.poll(() => image.evaluate((i: HTMLImageElement) => i.naturalWidth > 0)).toBe(true);
  // The screen took the entry's answers.
  expect(asked.filter((path) => path.startsWith("/api/stories"))).toHaveLength(1);
  expect(asked.filter((path) => path === thumbnail)).toHaveLength(1);
});
