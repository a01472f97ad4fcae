import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page, Route } from "@playwright/test";
import { TEXT, unique } from "../pages/account.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";
import { startServer } from "../support/global-setup.ts";

/**
 * The public screens' forms work before their scripts do (issue 37): with JavaScript off, and when the person taps
 * the button before the scripts have arrived. The form posts to the server (never a GET), which signs the person in
 * and hands the session to the app, or shows the page again with the reason in their language. Nothing typed ever
 * appears in an address the browser asked for, nor in the server's log (its own server here, logging every request).
 */

test.use({ serviceWorkers: "block" });
let server: Awaited<ReturnType<typeof startServer>>;
const log: string[] = [];
test.beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "info" }, { onOutput: (text) => log.push(text) });
});
test.afterAll(async () => {
  await server?.stop();
});

/** Every address the context's pages asked for (navigations, redirects' targets, scripts, API calls). */
function trackRequests(context: BrowserContext): string[] {
  const urls: string[] = [];
  context.on("request", (request) => urls.push(request.url()));
  return urls;
}

/** Neither the password nor the username anywhere in an address or in the server's log. */
function expectNothingTypedLeaked(urls: string[], ...typed: string[]) {
  expect(urls.length).toBeGreaterThan(0);
  for (const secret of typed) {
    expect(urls.filter((url) => url.includes(secret) || url.includes(encodeURIComponent(secret)))).toEqual([]);
    expect(log.join("")).not.toContain(secret);
  }
  expect(urls.filter((url) => /[?&][^=]*password/i.test(url))).toEqual([]);
  // The log did record the requests (so its silence about what was typed means something).
  expect(log.join("")).toContain('"url":"/login"');
}

async function shoot(page: Page, lang: Lang, name: string) {
  const dir = resolve(import.meta.dirname, "..", "screenshots", lang);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** The signed-in home: the story list, with the session kept where the app keeps it. */
async function expectSignedInHome(page: Page, storage: "localStorage" | "sessionStorage") {
  await expect(page.locator(".story-card").first()).toBeVisible({ timeout: 20_000 });
  expect(new URL(page.url()).pathname).toBe("/");
  expect(new URL(page.url()).hash).toBe("");
  expect(await page.evaluate((where) => window[where].getItem("hikaya-auth"), storage)).toContain("refresh_token");
}

/**
 * A browser whose app scripts wait until the test lets them through (a phone on a slow line, the button tapped
 * meanwhile), with an account made through the server's form route and signed out again.
 */
async function slowScriptsWithAccount(browser: Browser, lang: Lang, prefix: string) {
  const context = await browser.newContext({ locale: lang, baseURL: server.url, viewport: { width: 390, height: 844 } });
  const urls = trackRequests(context);
  let release: () => void = () => undefined;
  const scriptsMayGo = new Promise<void>((resolve) => {
    release = resolve;
  });
  await context.route(/\/assets\/.*\.js$/, async (route: Route) => {
    await scriptsMayGo;
    await route.continue();
  });
  const page = await context.newPage();
  const username = unique(prefix);
  const password = `pw-${unique("")}`;
  const made = await page.request.post("/register", {
    form: { country: "JO", username, password, agreeToReminder: "1" },
    headers: { "sec-fetch-site": "same-origin" },
    maxRedirects: 0,
  });
  expect(made.status()).toBe(303);
  await context.clearCookies();
  return { context, page, urls, username, password, release: () => release() };
}

const isHydrated = (page: Page) =>
  page.evaluate(() => Object.keys(document.getElementById("root") ?? {}).some((k) => k.startsWith("__react")));

test("with JavaScript off, register and log in post the form: signed in, or told why", async ({ browser, lang }) => {
  const t = TEXT[lang];
  const context = await browser.newContext({
    javaScriptEnabled: false,
    locale: lang,
    baseURL: server.url,
    viewport: { width: 390, height: 844 },
  });
  const urls = trackRequests(context);
  const page = await context.newPage();
  const username = unique("nojs");
  const password = `pw-${unique("")}`;
  try {
    await page.goto("/register");
    // The dropdown needs scripts; a plain list stands in for it.
    await page.getByRole("combobox", { name: t.account.fields.country }).selectOption("JO");
    await page.getByLabel(t.account.fields.username, { exact: true }).fill(username);
    await page.getByLabel(t.account.fields.password, { exact: true }).fill(password);
    await shoot(page, lang, "forms-no-js-register");
    await page.getByRole("button", { name: t.account.register.submit }).click();
    await page.waitForURL((url) => url.pathname === "/" && url.hash === "#signed-in");
    // The app's own screens need scripts: without them, after a few seconds, the page says so in the person's language.
    await expect(page.getByText(t.common.scriptsWaiting)).toBeVisible();
    await shoot(page, lang, "forms-no-js-signed-in");
    const handoff = (await context.cookies()).find((c) => c.name === "hikaya-handoff");
    expect(handoff).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/session-handoff" });

    // Once scripts run (here: the same browser's cookies in a context with JavaScript), the person is signed in.
    const withScripts = await browser.newContext({
      storageState: await context.storageState(),
      locale: lang,
      baseURL: server.url,
    });
    const urlsWithScripts = trackRequests(withScripts);
    const app = await withScripts.newPage();
    await app.goto("/#signed-in");
    await expectSignedInHome(app, "localStorage");
    await withScripts.close();

    // A wrong password: the same page again, the reason in the person's language, the username kept.
    await page.goto("/login");
    await page.getByLabel(t.account.fields.usernameOrPhone, { exact: true }).fill(username);
    await page.getByLabel(t.account.fields.password, { exact: true }).fill(`${password}-wrong`);
    await page.getByRole("button", { name: t.account.login.submit }).click();
    await expect(page.getByRole("alert")).toHaveText(t.common.errors.invalid_credentials);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).search).toBe("");
    await expect(page.getByLabel(t.account.fields.usernameOrPhone, { exact: true })).toHaveValue(username);
    await expect(page.getByLabel(t.account.fields.password, { exact: true })).toHaveValue("");
    await shoot(page, lang, "forms-no-js-login-refused");

    // The right one: signed in, for this browser session only (Remember Me unticked).
    await page.getByLabel(t.account.fields.password, { exact: true }).fill(password);
    await page.getByLabel(t.account.login.remember).uncheck();
    await page.getByRole("button", { name: t.account.login.submit }).click();
    await page.waitForURL((url) => url.pathname === "/" && url.hash === "#signed-in");
    expect((await context.cookies()).find((c) => c.name === "hikaya-handoff")?.value).toMatch(/^0\./);
    expectNothingTypedLeaked([...urls, ...urlsWithScripts], password, username);
  } finally {
    await context.close();
  }
});

test("a form sent before the scripts arrive: signed in once they run, or told why", async ({ browser, lang }) => {
  const t = TEXT[lang];
  const { context, page, urls, username, password, release } = await slowScriptsWithAccount(browser, lang, "early");
  try {
    await page.goto("/login", { waitUntil: "commit" });
    await expect(page.getByRole("button", { name: t.account.login.submit })).toBeVisible();
    // Not hydrated: React has not taken the root over.
    expect(await isHydrated(page)).toBe(false);
    await page.getByLabel(t.account.fields.usernameOrPhone, { exact: true }).fill(username);
    await page.getByLabel(t.account.fields.password, { exact: true }).fill(`${password}-wrong`);
    await page.getByRole("button", { name: t.account.login.submit }).click();
    await expect(page.getByRole("alert")).toHaveText(t.common.errors.invalid_credentials);
    await shoot(page, lang, "forms-early-login-refused");

    await page.getByLabel(t.account.fields.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: t.account.login.submit }).click();
    await page.waitForURL((url) => url.pathname === "/" && url.hash === "#signed-in", { waitUntil: "commit" });
    release();
    // The scripts run, take the session from the handoff, and the app starts signed in (Remember Me was ticked).
    await expectSignedInHome(page, "localStorage");
    await shoot(page, lang, "forms-early-login-home");
    expect((await context.cookies()).find((c) => c.name === "hikaya-handoff")).toBeUndefined();
    expectNothingTypedLeaked(urls, password, username);
  } finally {
    release();
    await context.close();
  }
});

test("a page shown again by the server hydrates with what was typed, and the app takes over", async ({ browser, lang }) => {
  const t = TEXT[lang];
  const { context, page, username, password, release } = await slowScriptsWithAccount(browser, lang, "kept");
  try {
    await page.goto("/login", { waitUntil: "commit" });
    await page.getByLabel(t.account.fields.usernameOrPhone, { exact: true }).fill(username);
    await page.getByRole("button", { name: t.account.login.submit }).click();
    await expect(page.getByRole("alert")).toHaveText(t.account.validation.passwordRequired);
    // Now the scripts arrive and React takes the page over, the kept username in its box and in the form's state.
    release();
    await expect.poll(() => isHydrated(page)).toBe(true);
    await expect(page.getByLabel(t.account.fields.usernameOrPhone, { exact: true })).toHaveValue(username);
    await page.getByLabel(t.account.fields.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: t.account.login.submit }).click();
    // The app's own sign-in (no post): the notice goes, the welcome toast comes, home.
    await expect(page.locator(".toast").filter({ hasText: t.account.login.welcome })).toBeVisible();
    await expect(page.locator("#form-notice")).toHaveCount(0);
    await expectSignedInHome(page, "localStorage");
  } finally {
    release();
    await context.close();
  }
});
