import { resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { AccountPages, dismissToasts, jordanPhone, unique } from "../pages/account.ts";
import { INBOX_STRINGS } from "../pages/messages.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";
import { E2E_ADMIN, startServer } from "../support/global-setup.ts";

/**
 * Sessions over time, in seconds: a server whose access tokens live 4 s, so "three token lifetimes"
 * (about an hour and a half of real use) passes in 13 s. Each test drives the real app in Chromium.
 */
const LIFETIME_S = 4;
const THREE_LIFETIMES_MS = (3 * LIFETIME_S + 1) * 1000;

let server: Awaited<ReturnType<typeof startServer>>;

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  server = await startServer({ JWT_EXPIRY_SECONDS: String(LIFETIME_S), WEB_DIST_DIR: process.env.E2E_WEB_DIST ?? "" });
});

test.afterAll(async () => {
  await server?.stop();
});

async function phoneContext(browser: Browser, lang: Lang, storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>) {
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: { width: 390, height: 844 },
    locale: lang === "ar" ? "ar" : "en-US",
    timezoneId: "UTC",
    ...(storageState ? { storageState } : {}),
  });
  await context.addInitScript((l) => {
    if (!localStorage.getItem("i18nextLng")) localStorage.setItem("i18nextLng", l);
  }, lang);
  return context;
}

async function anonKey(page: Page): Promise<string> {
  return ((await (await page.request.get(`${server.url}/api/settings`)).json()) as { anonKey: string }).anonKey;
}

/** The stories list answered for this person: they are signed in and their token works. */
async function expectSignedInHome(page: Page) {
  await page.goto("/");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator(".story-card").first()).toBeVisible();
}

async function registerWithUsername(page: Page, lang: Lang) {
  const p = new AccountPages(page, lang);
  await page.goto("/register");
  await p.register(unique("ses"), "session-pass-1");
  await expect(page).toHaveURL(/\/$/);
}

async function signInWithUsername(page: Page, lang: Lang, username: string, password: string, remember: boolean) {
  const p = new AccountPages(page, lang);
  await page.goto("/login");
  await p.field(p.t.account.fields.usernameOrPhone).fill(username);
  await p.password.fill(password);
  const box = page.getByRole("checkbox", { name: p.t.account.login.remember });
  if (remember) await box.check();
  else await box.uncheck();
  await p.button(p.t.account.login.submit).click();
  await expect(page).toHaveURL(/\/$/);
}

const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem("token") ?? sessionStorage.getItem("token"));

test("Remember Me (username): still signed in after three token lifetimes, a reload and a new browser context", async ({
  browser,
  lang,
}) => {
  const context = await phoneContext(browser, lang);
  const page = await context.newPage();
  await registerWithUsername(page, lang);
  const first = await storedToken(page);

  await page.waitForTimeout(THREE_LIFETIMES_MS);
  await expectSignedInHome(page);
  const rotated = await storedToken(page);
  expect(rotated).toBeTruthy();
  expect(rotated).not.toBe(first);
  await page.screenshot({ path: resolve(import.meta.dirname, "..", "screenshots", lang, "session-after-three-lifetimes.png") });

  await page.reload();
  await expect(page.locator(".story-card").first()).toBeVisible();

  // A browser restart with the same storage (Remember Me keeps it in localStorage).
  const state = await context.storageState();
  await context.close();
  await new Promise((r) => setTimeout(r, THREE_LIFETIMES_MS));
  const again = await phoneContext(browser, lang, state);
  const page2 = await again.newPage();
  await expectSignedInHome(page2);
  await again.close();
});

test("Remember Me (phone sign-up): the phone path's session is refreshed like any other", async ({ browser, lang }) => {
  const context = await phoneContext(browser, lang);
  const page = await context.newPage();
  const p = new AccountPages(page, lang);
  await page.goto(lang === "ar" ? "/arabic-register" : "/arabic-register?lng=en");
  await p.country.choose("962", lang === "ar" ? "الأردن" : "Jordan");
  await p.phone.fill(jordanPhone());
  await p.password.fill("phone-pass-1");
  await dismissToasts(page);
  await p.button(p.t.account.register.submit).click();
  await expect(page).toHaveURL(/\/landing-page$/);
  expect(await page.evaluate(() => localStorage.getItem("hikaya-auth"))).toContain("refresh_token");

  await page.waitForTimeout(THREE_LIFETIMES_MS);
  await expectSignedInHome(page);
  const state = await context.storageState();
  await context.close();
  const again = await phoneContext(browser, lang, state);
  await expectSignedInHome(await again.newPage());
  await again.close();
});

test("without Remember Me: refreshed while open, signed out in a new browser context", async ({ browser, lang, request }) => {
  const username = unique("nor");
  const key = (await (await request.get(`${server.url}/api/settings`)).json()) as {
    anonKey: string;
    usernameEmailDomain: string;
  };
  const res = await request.post(`${server.url}/auth/v1/signup`, {
    headers: { apikey: key.anonKey },
    data: { email: `${username}@${key.usernameEmailDomain}`, password: "no-remember-1" },
  });
  expect(res.status()).toBe(200);

  const context = await phoneContext(browser, lang);
  const page = await context.newPage();
  await signInWithUsername(page, lang, username, "no-remember-1", false);
  expect(await page.evaluate(() => localStorage.getItem("hikaya-auth"))).toBeNull();
  await page.waitForTimeout(THREE_LIFETIMES_MS);
  await expectSignedInHome(page);

  const state = await context.storageState();
  await context.close();
  const again = await phoneContext(browser, lang, state);
  const page2 = await again.newPage();
  await page2.goto("/");
  await expect(page2).toHaveURL(/\/login$/);
  await again.close();
});

test("Log out ends the session on the server: the old tokens are refused", async ({ browser, lang }) => {
  const context = await phoneContext(browser, lang);
  const page = await context.newPage();
  await registerWithUsername(page, lang);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("hikaya-auth") ?? "{}"));
  const { access_token: access, refresh_token: refresh } = stored as { access_token: string; refresh_token: string };

  const p = new AccountPages(page, lang);
  await page.getByRole("button", { name: p.t.stories.menu.open }).click();
  const menu = page.getByRole("dialog", { name: p.t.stories.menu.label });
  await menu.getByRole("button", { name: p.t.stories.menu.logout }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem("hikaya-auth") ?? localStorage.getItem("token"))).toBeNull();

  const apikey = await anonKey(page);
  const profile = await page.request.post(`${server.url}/api/profile`, { headers: { authorization: `Bearer ${access}` } });
  expect(profile.status()).toBe(401);
  // /auth/v1 answers as Supabase Auth does for a token whose session has ended: 403 session_not_found.
  const user = await page.request.get(`${server.url}/auth/v1/user`, { headers: { apikey, authorization: `Bearer ${access}` } });
  expect(user.status()).toBe(403);
  expect(((await user.json()) as { error_code?: string }).error_code).toBe("session_not_found");
  const refreshed = await page.request.post(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
    headers: { apikey },
    data: { refresh_token: refresh },
  });
  expect(refreshed.status()).toBeGreaterThanOrEqual(400);
  await context.close();
});

test("the console's live inbox receives a family's message sent after three token lifetimes, without a reload", async ({
  browser,
  lang,
  request,
}) => {
  const consoleCtx = await browser.newContext({
    baseURL: server.url,
    viewport: { width: 1280, height: 800 },
    locale: lang === "ar" ? "ar" : "en-US",
  });
  await consoleCtx.addInitScript((l) => localStorage.setItem("i18nextLng", l), lang);
  const admin = await consoleCtx.newPage();
  await admin.goto("/admin/login");
  await admin.locator("#admin-email").fill(E2E_ADMIN.email);
  await admin.locator("#admin-password").fill(E2E_ADMIN.password);
  await admin.locator("form button[type=submit]").click();
  await expect(admin).toHaveURL(/\/admin\/stories$/);
  await admin.goto("/admin/inbox");
  await expect(admin.getByRole("heading", { name: INBOX_STRINGS[lang].title })).toBeVisible();

  // A family member signs up in another browser tab of the same machine: the console is not touched.
  const family = await phoneContext(browser, lang);
  const familyPage = await family.newPage();
  await registerWithUsername(familyPage, lang);
  expect(await admin.evaluate(() => localStorage.getItem("hikaya-console-auth"))).toBeTruthy();

  await admin.waitForTimeout(THREE_LIFETIMES_MS);
  const text = unique("after-three-lifetimes-");
  // The family's app refreshes its own expired token on its next request; send with the fresh one.
  await expectSignedInHome(familyPage);
  const fresh = await familyPage.evaluate(() => localStorage.getItem("token"));
  const sent = await request.post(`${server.url}/api/message/send`, {
    headers: { authorization: `Bearer ${fresh}` },
    multipart: { message: text, messageType: "text" },
  });
  expect(sent.status(), await sent.text()).toBe(200);
  await expect(admin.getByText(text)).toBeVisible({ timeout: 15_000 });
  await family.close();
  await consoleCtx.close();
});
