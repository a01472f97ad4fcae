import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { ADMIN_STRINGS as ADMIN, adminToken, Console } from "../pages/admin.ts";
import { COMMON } from "../pages/journey.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

const LAPTOP = { width: 1280, height: 860 };
const PASSWORD = "operator-pass-1";
const JORDAN = { en: "Jordan", ar: "الأردن" } as const;

/** A Jordanian mobile number written as people write it at home, its E.164 form, and as the Team list groups it. */
function jordanianMobile() {
  const local = `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const national = local.slice(1);
  return {
    local,
    e164: `+962${national}`,
    shown: `+962 ${national.slice(0, 1)} ${national.slice(1, 5)} ${national.slice(5)}`,
  };
}

async function lastMessageTo(request: APIRequestContext, token: string, recipient: string): Promise<string> {
  const res = await request.get(`/api/admin/sms-outbox?recipient=${encodeURIComponent(recipient)}&limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const [message] = ((await res.json()) as { messages: { body: string }[] }).messages;
  expect(message, `a message to ${recipient}`).toBeTruthy();
  return message?.body ?? "";
}

/** The path and query of the console link a message carries (the server's PUBLIC_URL may differ from the test's). */
function consoleLink(body: string, page: "join" | "login"): string {
  const link = new RegExp(`https?://\\S+/admin/${page}(\\?\\S+)?`).exec(body)?.[0];
  expect(link, body).toBeTruthy();
  const url = new URL(link ?? "http://x/");
  return `${url.pathname}${url.search}`;
}

/**
 * Chooses Jordan in the console's country dropdown (components/country-select.tsx) by keyboard. Its search box is
 * found by name: the Team page's role selects are comboboxes too.
 */
async function chooseJordan(page: Page, lang: Lang) {
  const trigger = page.getByRole("button", { name: new RegExp(`^${ADMIN[lang].login.country}`) });
  await trigger.click();
  const box = page.getByRole("combobox", { name: COMMON[lang].countrySelect.search });
  await expect(box).toBeFocused();
  await box.fill("Jordan");
  await expect(page.getByRole("option").first()).toContainText(JORDAN[lang]);
  await box.press("Enter");
  await expect(trigger).toContainText(JORDAN[lang]);
}

async function ownBrowser(browser: Browser, lang: Lang): Promise<Page> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    viewport: LAPTOP,
    locale: lang === "ar" ? "ar" : "en-US",
  });
  await context.addInitScript((l: string) => localStorage.setItem("i18nextLng", l), lang);
  return context.newPage();
}

async function openTeam(c: Console) {
  await c.page.setViewportSize(LAPTOP);
  await c.signIn();
  await c.submitSignIn();
  await c.go(c.s.nav.team, c.s.team.title);
}

async function invite(c: Console, contact: string, jordan = false) {
  const { page, s } = c;
  if (jordan) await chooseJordan(page, c.lang);
  await page.getByLabel(s.team.contact).fill(contact);
  await page.getByLabel(s.team.role, { exact: true }).selectOption("facilitator");
  await page.getByRole("button", { name: s.team.invite }).click();
  await expect(page.getByRole("status").filter({ hasText: contact })).toBeVisible();
}

/** The Team list after a reload, so it shows what the server says now. */
async function teamRow(c: Console, who: string) {
  await c.page.reload();
  await expect(c.page.getByRole("heading", { level: 1, name: c.s.team.title })).toBeVisible();
  return c.page.getByTestId("team-member").filter({ hasText: who });
}

async function removeMember(
  request: APIRequestContext,
  token: string,
  match: (m: { email: string | null; phone: string | null }) => boolean,
) {
  const headers = { authorization: `Bearer ${token}` };
  const team = (await (await request.get("/api/admin/team", { headers })).json()) as {
    id: string;
    email: string | null;
    phone: string | null;
  }[];
  const member = team.find(match);
  expect(member).toBeTruthy();
  expect((await request.delete(`/api/admin/team/${member?.id}`, { headers })).status()).toBe(200);
}

test("someone invited by e-mail opens the console's join page, chooses a password and is signed in; only then are they joined", async ({
  page,
  lang,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const email = `e2e-join-${lang}-${Date.now().toString(36)}@hikaya.test`;
  await openTeam(c);
  await invite(c, email);
  await expect(page.getByTestId("team-member").filter({ hasText: email })).toContainText(s.team.invited);

  const token = await adminToken(request);
  const path = consoleLink(await lastMessageTo(request, token, email), "join");
  const invitee = await ownBrowser(browser, lang);
  await invitee.goto(path);
  await expect(invitee.getByRole("heading", { name: s.join.title })).toBeVisible();
  await expect(invitee.getByLabel(s.join.email)).toHaveValue(email);
  // Opening the link is not joining: the list still says "invited".
  await expect(await teamRow(c, email)).toContainText(s.team.invited);

  await invitee.getByLabel(s.join.password).fill(PASSWORD);
  await invitee.getByRole("button", { name: s.join.submit }).click();
  await expect(invitee).toHaveURL(/\/admin\/users$/);
  await expect(
    invitee.getByRole("navigation", { name: s.nav.label }).getByRole("link", { name: s.nav.users, exact: true }),
  ).toBeVisible();
  await invitee.context().close();

  const row = await teamRow(c, email);
  await expect(row).toBeVisible();
  await expect(row).not.toContainText(s.team.invited);
  await removeMember(request, token, (m) => m.email === email);
});

test("someone invited by a local phone number with Jordan joins with the texted code, then signs in the same way", async ({
  page,
  lang,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const phone = jordanianMobile();
  await openTeam(c);
  await invite(c, phone.local, true);

  const token = await adminToken(request);
  const path = consoleLink(await lastMessageTo(request, token, phone.e164), "join");
  const invitee = await ownBrowser(browser, lang);
  await invitee.goto(path);
  await expect(invitee.getByRole("heading", { name: s.join.title })).toBeVisible();
  await expect(invitee.getByLabel(s.join.phone)).toHaveValue(phone.e164);
  await expect(invitee.getByLabel(s.join.code)).toHaveValue(/^\d{6}$/);
  await expect(await teamRow(c, phone.shown)).toContainText(s.team.invited);

  await invitee.getByLabel(s.join.password).fill(PASSWORD);
  await invitee.getByRole("button", { name: s.join.submit }).click();
  await expect(invitee).toHaveURL(/\/admin\/users$/);
  await invitee.context().close();
  await expect(await teamRow(c, phone.shown)).not.toContainText(s.team.invited);

  // The console's sign-in reads the same local number with the country chosen beside it.
  const again = await ownBrowser(browser, lang);
  await again.goto("/admin/login");
  await chooseJordan(again, lang);
  await again.getByLabel(s.login.email).fill(phone.local);
  await again.getByLabel(s.login.password, { exact: true }).fill(PASSWORD);
  await again.getByRole("button", { name: s.login.submit }).click();
  await expect(again).toHaveURL(/\/admin\/users$/);
  await again.context().close();
  await removeMember(request, token, (m) => m.phone === phone.e164);
});

test("a family account invited to the team is told by text and opens the console with its own password", async ({
  page,
  lang,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const phone = jordanianMobile();
  const familyPassword = "family-pass-1";
  const signUp = await request.post("/api/sign-up", {
    data: { country: "JO", phoneNumber: phone.local, password: familyPassword, agreeToReminder: false },
  });
  expect(signUp.status(), await signUp.text()).toBe(200);

  await openTeam(c);
  await invite(c, phone.local, true);
  // They already have a password and a confirmed phone: joined at once.
  const row = await teamRow(c, phone.shown);
  await expect(row).toBeVisible();
  await expect(row).not.toContainText(s.team.invited);

  const token = await adminToken(request);
  const path = consoleLink(await lastMessageTo(request, token, phone.e164), "login");
  const operator = await ownBrowser(browser, lang);
  await operator.goto(path);
  await chooseJordan(operator, lang);
  await operator.getByLabel(s.login.email).fill(phone.local);
  await operator.getByLabel(s.login.password, { exact: true }).fill(familyPassword);
  await operator.getByRole("button", { name: s.login.submit }).click();
  await expect(operator).toHaveURL(/\/admin\/users$/);
  await operator.context().close();
  await removeMember(request, token, (m) => m.phone === phone.e164);
});
