import type { APIRequestContext } from "@playwright/test";
import { adminToken, Console } from "../pages/admin.ts";
import { COMMON } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

const LAPTOP = { width: 1280, height: 860 };
const PASSWORD = "facilitator-pass-1";

/** The invited person accepts: here their password is set through the admin API (the invitation's link does the same). */
async function acceptInvitation(request: APIRequestContext, token: string, email: string) {
  const headers = { authorization: `Bearer ${token}` };
  const team = (await (await request.get("/api/admin/team", { headers })).json()) as { id: string; email: string | null }[];
  const member = team.find((m) => m.email === email);
  expect(member, `${email} is in the team`).toBeTruthy();
  const { anonKey } = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const res = await request.put(`/auth/v1/admin/users/${member?.id}`, {
    headers: { ...headers, apikey: anonKey },
    data: { password: PASSWORD, email_confirm: true },
  });
  expect(res.status(), await res.text()).toBe(200);
  return member?.id ?? "";
}

test("an admin invites a facilitator, who signs in and sees only the inbox and people", async ({
  page,
  lang,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(LAPTOP);
  const c = new Console(page, lang);
  const s = c.s;
  const email = `e2e-fac-${lang}-${Date.now().toString(36)}@hikaya.test`;

  await c.signIn();
  await c.submitSignIn();
  await c.go(s.nav.team, s.team.title);
  await page.getByLabel(s.team.contact).fill(email);
  await page.getByLabel(s.team.role, { exact: true }).selectOption("facilitator");
  await page.getByRole("button", { name: s.team.invite }).click();
  await expect(page.getByRole("status").filter({ hasText: email })).toBeVisible();
  const row = page.getByTestId("team-member").filter({ hasText: email });
  await expect(row).toContainText(s.team.invited);

  const token = await adminToken(request);
  const id = await acceptInvitation(request, token, email);

  // The facilitator, in a browser of their own.
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    viewport: LAPTOP,
    locale: lang === "ar" ? "ar" : "en-US",
  });
  await context.addInitScript((l: string) => localStorage.setItem("i18nextLng", l), lang);
  const facPage = await context.newPage();
  await facPage.goto("/admin/login");
  await facPage.getByLabel(s.login.email).fill(email);
  await facPage.getByLabel(s.login.password, { exact: true }).fill(PASSWORD);
  await facPage.getByRole("button", { name: s.login.submit }).click();
  await expect(facPage).toHaveURL(/\/admin\/users$/);
  const nav = facPage.getByRole("navigation", { name: s.nav.label });
  await expect(nav.getByRole("link", { name: s.nav.users, exact: true })).toBeVisible();
  await expect(nav.getByRole("link", { name: s.nav.inbox })).toBeVisible();
  for (const hidden of [s.nav.stories, s.nav.settings, s.nav.audit, s.nav.outbox, s.nav.team, s.nav.reminders]) {
    await expect(nav.getByRole("link", { name: hidden, exact: true })).toHaveCount(0);
  }
  // A content page opened by its address is refused in the UI too.
  await facPage.goto("/admin/stories");
  await expect(facPage.getByRole("heading", { name: s.guard.roleTitle })).toBeVisible();

  // A role change is asked first; once done, the facilitator's open console says their access changed (its live
  // stream is refused when the server ends their sessions) instead of staying quietly stale.
  await facPage.goto("/admin/users");
  await expect(facPage.getByRole("navigation", { name: s.nav.label })).toBeVisible();
  await page.reload();
  await row.getByLabel(s.team.roleOf.replace("{{who}}", email)).selectOption("admin");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(s.team.changeRoleBody);
  await dialog.getByRole("button", { name: s.team.changeRole }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByLabel(s.team.roleOf.replace("{{who}}", email))).toHaveValue("admin");
  await facPage.bringToFront();
  // At once: well inside the server's 25 s stream check, which the role change no longer waits for.
  await expect(facPage.getByRole("heading", { name: s.guard.expiredTitle })).toBeVisible();
  await expect(facPage.getByRole("link", { name: s.guard.toAdminLogin })).toBeVisible();
  await context.close();

  // Removing them ends their access: clean up as well.
  const removed = await request.delete(`/api/admin/team/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(removed.status()).toBe(200);
});

test("an operator invited by phone joins with the code and link the invitation texted them; the same code again is refused", async ({
  page,
  lang,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(LAPTOP);
  const c = new Console(page, lang);
  const s = c.s;
  const phone = `+97150${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;

  await c.signIn();
  await c.submitSignIn();
  await c.go(s.nav.team, s.team.title);
  await page.getByLabel(s.team.contact).fill(phone);
  await page.getByLabel(s.team.role, { exact: true }).selectOption("facilitator");
  await page.getByRole("button", { name: s.team.invite }).click();
  await expect(page.getByRole("status").filter({ hasText: phone })).toBeVisible();
  // On screen the "+" stands before the digits in Arabic too (the number is isolated left to right in the sentence).
  const plusFirst = await page
    .getByRole("status")
    .filter({ hasText: phone })
    .evaluate((el) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent?.indexOf("+") ?? -1;
        if (at < 0) continue;
        const box = (from: number) => {
          const range = document.createRange();
          range.setStart(node, from);
          range.setEnd(node, from + 1);
          return range.getBoundingClientRect().left;
        };
        return box(at) < box(at + 1);
      }
      return null;
    });
  expect(plusFirst).toBe(true);

  const token = await adminToken(request);
  const headers = { authorization: `Bearer ${token}` };
  const outbox = await request.get(`/api/admin/sms-outbox?recipient=${encodeURIComponent(phone)}&limit=1`, { headers });
  const [message] = ((await outbox.json()) as { messages: { body: string }[] }).messages;
  const link = /https?:\/\/\S+\/admin\/join\?\S+/.exec(message?.body ?? "")?.[0];
  expect(link, message?.body).toBeTruthy();
  const { pathname, search } = new URL(link ?? "");

  async function openInvitation() {
    const context = await browser.newContext({
      baseURL: process.env.E2E_BASE_URL,
      viewport: LAPTOP,
      locale: lang === "ar" ? "ar" : "en-US",
    });
    await context.addInitScript((l: string) => localStorage.setItem("i18nextLng", l), lang);
    const joinPage = await context.newPage();
    await joinPage.goto(`${pathname}${search}`);
    await expect(joinPage.getByRole("heading", { name: s.join.title })).toBeVisible();
    await expect(joinPage.getByLabel(s.join.phone)).toHaveValue(phone);
    await joinPage.getByLabel(s.join.password).fill(PASSWORD);
    await joinPage.getByRole("button", { name: s.join.submit }).click();
    return joinPage;
  }

  const joined = await openInvitation();
  await expect(joined).toHaveURL(/\/admin\/users$/);
  await joined.context().close();

  const again = await openInvitation();
  await expect(again.getByRole("alert")).toHaveText(COMMON[lang].errors.invite_invalid);
  await expect(again).toHaveURL(/\/admin\/join/);
  await again.context().close();

  const team = (await (await request.get("/api/admin/team", { headers })).json()) as { id: string; phone: string | null }[];
  const member = team.find((m) => m.phone === phone);
  expect(member).toBeTruthy();
  expect((await request.delete(`/api/admin/team/${member?.id}`, { headers })).status()).toBe(200);
});

test("on a phone each operator's role shows in its box and Remove is on screen", async ({ page, lang, request, shot }) => {
  const c = new Console(page, lang);
  const s = c.s;
  const email = `e2e-phone-${lang}-${Date.now().toString(36)}@hikaya.test`;
  await c.signIn();
  await c.submitSignIn();
  await c.go(s.nav.team, s.team.title);
  await page.getByLabel(s.team.contact).fill(email);
  await page.getByRole("button", { name: s.team.invite }).click();
  const row = page.getByTestId("team-member").filter({ hasText: email });
  await expect(row).toBeVisible();

  // The signed-in operator names themself for the console; their own row shows it (colleagues see it on replies).
  const myName = `Admin ${lang}`;
  await page.getByLabel(s.team.displayName).fill(myName);
  await page.getByRole("button", { name: s.team.saveName }).click();
  await expect(page.getByRole("status").filter({ hasText: s.team.nameSaved })).toBeVisible();
  await expect(page.getByTestId("team-member").filter({ hasText: "e2e-admin@" })).toContainText(myName);

  const viewport = page.viewportSize();
  const select = row.getByLabel(s.team.roleOf.replace("{{who}}", email));
  await expect(select).toHaveValue("facilitator");
  // Wide enough for its role's name (it was squeezed to an empty box), and inside the screen.
  const box = await select.boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(120);
  const remove = row.getByRole("button", { name: s.team.remove });
  await remove.scrollIntoViewIfNeeded();
  const removeBox = await remove.boundingBox();
  expect(removeBox, "Remove has a box").not.toBeNull();
  expect(removeBox?.x ?? -1).toBeGreaterThanOrEqual(0);
  expect((removeBox?.x ?? 0) + (removeBox?.width ?? 0)).toBeLessThanOrEqual(viewport?.width ?? 0);
  // Nothing scrolls sideways.
  const wrap = page.locator(".admin-table-wrap");
  expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  await row.scrollIntoViewIfNeeded();
  await shot("team-phone");
  // Other specs expect the shared admin unnamed: clear the name again (an empty name removes it).
  await page.getByLabel(s.team.displayName).fill("");
  await page.getByRole("button", { name: s.team.saveName }).click();
  await expect(page.getByTestId("team-member").filter({ hasText: "e2e-admin@" })).not.toContainText(myName);

  const token = await adminToken(request);
  const headers = { authorization: `Bearer ${token}` };
  const team = (await (await request.get("/api/admin/team", { headers })).json()) as { id: string; email: string | null }[];
  const member = team.find((m) => m.email === email);
  expect((await request.delete(`/api/admin/team/${member?.id}`, { headers })).status()).toBe(200);
});
