import type { Browser, Page } from "@playwright/test";
import { AccountPages, createPhoneAccount, dismissToasts } from "../pages/account.ts";
import { Console } from "../pages/admin.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

const LAPTOP = { width: 1280, height: 860 };
const PASSWORD = "people-pass-1";

/** The family member's own phone, in a browser of their own. */
async function familyPage(browser: Browser, lang: Lang): Promise<Page> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 390, height: 844 },
    locale: lang === "ar" ? "ar" : "en-US",
  });
  await context.addInitScript((l: string) => localStorage.setItem("i18nextLng", l), lang);
  return context.newPage();
}

/** Signs in on the app's login screen with a Jordanian number in its local form. */
async function submitFamilySignIn(page: Page, lang: Lang, national: string) {
  const p = new AccountPages(page, lang);
  await page.goto("/login");
  await p.country.choose(lang === "ar" ? "الأردن" : "Jordan", lang === "ar" ? "الأردن" : "Jordan");
  await p.field(p.t.account.fields.usernameOrPhone).fill(national);
  await p.password.fill(PASSWORD);
  await dismissToasts(page);
  await p.button(p.t.account.login.submit).click();
  return p;
}

test("an admin finds a person by local phone, blocks them (their open app is signed out), unblocks, sends a reset code and deletes the account", async ({
  page,
  lang,
  browser,
  request,
  shot,
}) => {
  test.setTimeout(120_000);
  const person = await createPhoneAccount(request, PASSWORD);
  const name = `Huda ${lang} ${Date.now().toString(36)}`;
  const named = await request.post("/api/users", {
    headers: { authorization: `Bearer ${person.token}` },
    data: { id: person.userId, name },
  });
  expect(named.status(), await named.text()).toBe(200);

  // The family member is signed in on their phone.
  const family = await familyPage(browser, lang);
  const app = await submitFamilySignIn(family, lang, person.national);
  await app.expectToast(app.t.account.login.welcome);
  await expect(family).toHaveURL(/\/$/);

  // The admin finds them by the local "07…" form; the list shows the number in international form, grouped.
  await page.setViewportSize(LAPTOP);
  const c = new Console(page, lang);
  const s = c.s;
  await c.signIn();
  await c.submitSignIn();
  await c.go(s.nav.users, s.users.title);
  await page.getByRole("searchbox", { name: s.users.search }).fill(person.national);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  const mobile = person.national.slice(1);
  await expect(row).toContainText(`+962 ${mobile.slice(0, 1)} ${mobile.slice(1, 5)} ${mobile.slice(5)}`);
  // On a phone each person is a compact card (four squeezed columns made rows many lines tall), still a table row.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row).toHaveCount(1);
  expect((await row.boundingBox())?.height ?? 1000).toBeLessThan(110);
  expect(await page.locator(".admin-table-wrap").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  await shot("people-phone");
  await page.setViewportSize(LAPTOP);
  await row.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByRole("link", { name: s.people.openConversation })).toHaveAttribute(
    "href",
    `/admin/inbox/${person.userId}`,
  );

  // Block, after a confirmation: the family's open app is signed out and cannot sign in again.
  await page.getByRole("button", { name: s.people.block, exact: true }).click();
  const blockDialog = page.getByRole("dialog", { name: s.people.blockTitle });
  await expect(blockDialog).toContainText(name);
  await blockDialog.getByRole("button", { name: s.people.block, exact: true }).click();
  await expect(c.toast(s.people.blocked)).toBeVisible();
  await expect(page.getByRole("button", { name: s.people.unblock })).toBeVisible();
  await shot("person-blocked");

  await family.reload();
  await expect(family).toHaveURL(/\/login$/);
  await submitFamilySignIn(family, lang, person.national);
  await app.expectToast(app.t.common.errors.account_blocked);
  await expect(family).toHaveURL(/\/login$/);

  // Unblock: they can sign in again.
  await page.getByRole("button", { name: s.people.unblock }).click();
  await expect(c.toast(s.people.unblocked)).toBeVisible();
  await submitFamilySignIn(family, lang, person.national);
  await app.expectToast(app.t.account.login.welcome);
  await expect(family).toHaveURL(/\/$/);
  await family.context().close();

  // A reset code, after a confirmation; it is in the outbox, with the link to the app's code screen.
  await page.getByRole("button", { name: s.people.sendReset }).click();
  const resetDialog = page.getByRole("dialog", { name: s.people.resetTitle });
  await resetDialog.getByRole("button", { name: s.people.sendReset }).click();
  await expect(c.toast(s.people.resetSent)).toBeVisible();
  const personUrl = page.url();
  await c.go(s.nav.outbox, s.outbox.title);
  await page.getByRole("searchbox", { name: s.outbox.search }).fill(person.e164);
  await expect(page.getByRole("row").filter({ hasText: `/send-otp/${person.userId}` })).toHaveCount(1);

  // Deleting the account asks first, then the person is gone from the list.
  await page.goto(personUrl);
  await page.getByRole("button", { name: s.people.delete, exact: true }).click();
  const deleteDialog = page.getByRole("dialog", { name: s.people.deleteTitle });
  await deleteDialog.getByRole("button", { name: s.people.delete, exact: true }).click();
  await expect(c.toast(s.people.deleted)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/users$/);
  await page.getByRole("searchbox", { name: s.users.search }).fill(person.national);
  await expect(page.getByText(s.users.none)).toBeVisible();
});
