import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { ADMIN_STRINGS, adminToken } from "../pages/admin.ts";
import {
  type BrowserSession,
  type ChatUser,
  facilitatorSession,
  INBOX_STRINGS,
  invitedFacilitator,
  listMessages,
  MESSAGE_STRINGS,
  storeSession,
} from "../pages/messages.ts";
import { userApp } from "../support/console-setup.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

/**
 * The facilitator's day (issue 40): saved replies inserted with "/", private notes, owners and the "Mine" tab, the tab
 * title and desktop notifications, and every operator naming themselves. Consoles run at phone size (390×844), as a
 * facilitator answering from a phone would.
 */

const PHONE = { width: 390, height: 844 };
const SHOTS = resolve(import.meta.dirname, "..", "screenshots");

async function snap(page: Page, lang: Lang, name: string) {
  mkdirSync(join(SHOTS, lang), { recursive: true });
  await page.screenshot({ path: join(SHOTS, lang, `${name}.png`) });
}

/** A family member who signed up in Arabic or English, has a profile, and has written once. */
async function family(request: APIRequestContext, language: Lang, text: string): Promise<ChatUser> {
  const phone = `77${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await request.post("/api/sign-up", {
    data: { country: "+962", phoneNumber: phone, password: "family-pass-1", agreeToReminder: true, language },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; refreshToken: string; expiresAt: number; user: { id: string } };
  const headers = { authorization: `Bearer ${body.token}` };
  const name = language === "ar" ? "ليلى حداد" : "Layla Haddad";
  const update = await request.post("/api/profile/update", {
    headers,
    multipart: { name, city: "Amman", gender: "Female", ageGroup: "31-50" },
  });
  expect(update.status(), await update.text()).toBe(200);
  const sent = await request.post("/api/message/send", { headers, data: { message: text, messageType: "text" } });
  expect(sent.status(), await sent.text()).toBe(200);
  return { token: body.token, userId: body.user.id, refreshToken: body.refreshToken, expiresAt: body.expiresAt, phone };
}

/** A console at phone size signed in as `session`, in a context of its own (`permissions` for notifications). */
async function consoleAs(
  browser: Browser,
  session: BrowserSession,
  lang: Lang,
  permissions: string[] = [],
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    viewport: PHONE,
    locale: lang === "ar" ? "ar" : "en-US",
    hasTouch: true,
    permissions,
  });
  await storeSession(context, session, lang, "console");
  return { context, page: await context.newPage() };
}

const unique = (lang: Lang) => `${lang}-${Date.now().toString(36)}`;

/** The family's own chat screen shows `shown` and never `hidden` (a note, an operator's name). */
async function familySees(browser: Browser, person: ChatUser, lang: Lang, shown: string, hidden: string, shot?: string) {
  const app = await userApp(browser, { token: person.token, userId: person.userId, phone: person.phone }, lang);
  await app.page.goto("/chats");
  await expect(app.page.getByText(shown)).toBeVisible();
  await expect(app.page.getByText(hidden)).toHaveCount(0);
  if (shot) await snap(app.page, lang, shot);
  await app.context.close();
}

test("an admin saves a reply in both languages; a facilitator inserts it with / and the family's Arabic is sent", async ({
  browser,
  lang,
  request,
}) => {
  test.setTimeout(90_000);
  const a = ADMIN_STRINGS[lang];
  const m = MESSAGE_STRINGS[lang];
  const id = unique(lang);
  const title = `Welcome ${id}`;
  const textEn = `Welcome to Hikaya! We are glad you are here (${id}).`;
  const textAr = `أهلًا بك في حكاية! يسعدنا وجودك معنا (${id}).`;

  const admin = await consoleAs(browser, await facilitatorSession(request), lang);
  await admin.page.goto("/admin/replies");
  await expect(admin.page.getByRole("heading", { level: 1, name: a.replies.title })).toBeVisible();
  await admin.page.getByRole("button", { name: a.replies.new }).click();
  const form = admin.page.getByRole("form", { name: a.replies.new });
  await form.getByLabel(a.replies.titleField).fill(title);
  await form.getByLabel(a.replies.textEn).fill(textEn);
  await form.getByLabel(a.replies.textAr).fill(textAr);
  await snap(admin.page, lang, "day-reply-form");
  await form.getByRole("button", { name: a.common.save }).click();
  const saved = admin.page.getByTestId("saved-reply").filter({ hasText: title });
  await expect(saved).toContainText(textEn);
  await expect(saved).toContainText(textAr);
  await snap(admin.page, lang, "day-replies");
  await admin.context.close();

  const arabicFamily = await family(request, "ar", `مرحبا ${id}`);
  const facilitator = await invitedFacilitator(request, `e2e-day-replies-${id}@hikaya.test`);
  const fac = await consoleAs(browser, facilitator, lang);
  await fac.page.goto(`/admin/inbox/${arabicFamily.userId}`);
  const input = fac.page.getByRole("combobox", { name: m.placeholder });
  await expect(input).toBeVisible();
  // "/" and part of the title: the list filters as one types; the arrow keys and Enter pick.
  await input.pressSequentially(`/${id}`);
  const list = fac.page.getByRole("listbox", { name: m.savedReplies });
  await expect(list.getByRole("option")).toHaveCount(1);
  await expect(list.getByRole("option")).toContainText(title);
  await snap(fac.page, lang, "day-reply-picker");
  await input.press("ArrowDown");
  await input.press("Enter");
  await expect(input).toHaveValue(textAr);
  await expect(list).toHaveCount(0);
  await fac.page.getByRole("button", { name: m.send }).click();
  await expect.poll(async () => (await listMessages(request, arabicFamily)).at(-1)?.message).toBe(textAr);

  // The button opens the whole list for a tap; Escape closes it.
  await fac.page.getByRole("button", { name: m.savedReplies }).click();
  await expect(list.getByRole("option", { name: new RegExp(title) })).toBeVisible();
  await input.press("Escape");
  await expect(list).toHaveCount(0);
  await fac.context.close();

  // The shared server's library as the other suites found it.
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const replies = (await (await request.get("/api/admin/replies", { headers })).json()) as { id: string; title: string }[];
  for (const r of replies.filter((r) => r.title === title)) await request.delete(`/api/admin/replies/${r.id}`, { headers });
});

test("a private note shows live on a second console tab and never in the family's messages", async ({
  browser,
  lang,
  request,
}) => {
  const s = INBOX_STRINGS[lang];
  const id = unique(lang);
  const person = await family(request, lang, `Hello ${id}`);
  const admin = await consoleAs(browser, await facilitatorSession(request), lang);
  const [first, second] = [admin.page, await admin.context.newPage()];
  await second.goto(`/admin/inbox/${person.userId}`);
  await first.goto(`/admin/inbox/${person.userId}`);
  await expect(second.locator(".inbox-conversation__live.is-live")).toBeVisible();

  const note = `Prefers voice notes in the evening ${id}`;
  await first.getByRole("button", { name: s.notes.add }).click();
  await first.getByRole("textbox", { name: s.notes.field }).fill(note);
  await first.getByRole("button", { name: s.notes.save }).click();
  await expect(first.getByTestId("private-note").filter({ hasText: note })).toBeVisible();
  // The other tab had it read for it by the live stream, with who wrote it.
  const onSecond = second.getByTestId("private-note").filter({ hasText: note });
  await expect(onSecond).toBeVisible();
  await expect(onSecond).toContainText(s.notes.label);
  await snap(second, lang, "day-note-live");

  // The family's API and their own chat screen never carry it.
  expect(JSON.stringify(await listMessages(request, person))).not.toContain("Prefers voice notes");
  await familySees(browser, person, lang, `Hello ${id}`, note);
  await admin.context.close();
});

test("a conversation handed to a facilitator shows under Mine with a count, and they are told", async ({
  browser,
  lang,
  request,
}) => {
  const s = INBOX_STRINGS[lang];
  const a = ADMIN_STRINGS[lang];
  const id = unique(lang);
  const email = `e2e-day-owner-${id}@hikaya.test`;
  const facilitator = await invitedFacilitator(request, email);
  const person = await family(request, lang, `Who is there? ${id}`);
  const fac = await consoleAs(browser, facilitator, lang);
  await fac.page.goto("/admin/inbox");
  const mine = fac.page.getByRole("tab", { name: new RegExp(`^${s.filters.mine}`) });
  await expect(mine).toContainText("0");

  const admin = await consoleAs(browser, await facilitatorSession(request), lang);
  await admin.page.goto(`/admin/inbox/${person.userId}`);
  await admin.page.getByLabel(s.handTo).selectOption({ label: email });
  await expect(admin.page.locator(".inbox-conversation__assign")).toContainText(s.assignedTo.replace("{{name}}", email));
  await snap(admin.page, lang, "day-handed-over");

  // The facilitator's console is told at once, and the tab counts it.
  await expect(fac.page.getByText(a.alerts.handedToYou)).toBeVisible();
  await expect(mine).toContainText("1");
  await mine.click();
  await expect(fac.page.locator(".inbox__items").getByRole("listitem")).toHaveCount(1);
  await expect(fac.page.locator(".inbox__items")).toContainText(`Who is there? ${id}`);
  await snap(fac.page, lang, "day-mine");
  await admin.context.close();
  await fac.context.close();
});

test("with the console tab hidden, a family's message raises a notification and the title count rises", async ({
  browser,
  lang,
  request,
}) => {
  const s = INBOX_STRINGS[lang];
  const id = unique(lang);
  const facilitator = await invitedFacilitator(request, `e2e-day-notify-${id}@hikaya.test`);
  const fac = await consoleAs(browser, facilitator, lang, ["notifications"]);
  // The browser's own Notification, watched: each one made is recorded (nothing is stubbed on the server).
  await fac.context.addInitScript(() => {
    const Real = window.Notification;
    const made: { title: string; body?: string }[] = [];
    (window as unknown as { madeNotifications: typeof made }).madeNotifications = made;
    class Watched extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        made.push({ title, body: options?.body });
      }
    }
    Object.defineProperty(Watched, "permission", { get: () => Real.permission });
    Object.defineProperty(Watched, "requestPermission", { value: Real.requestPermission.bind(Real) });
    window.Notification = Watched as typeof Notification;
  });
  await fac.page.goto("/admin/inbox");
  await expect(fac.page.getByText(s.notifications.on)).toBeVisible();
  const count = async () => Number(/^\((\d+)\) /.exec(await fac.page.title())?.[1] ?? 0);
  await expect.poll(() => fac.page.title()).toContain(s.title);
  const before = await count();

  await fac.page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  const text = `Are you there? ${id}`;
  await family(request, lang, text);
  await expect
    .poll(() => fac.page.evaluate(() => (window as unknown as { madeNotifications: { body?: string }[] }).madeNotifications))
    .toEqual([expect.objectContaining({ body: text })]);
  await expect.poll(count).toBe(before + 1);
  expect(await fac.page.title()).toMatch(/^\(\d+\) /);
  await snap(fac.page, lang, "day-title-count");
  await fac.context.close();
});

test("a facilitator sets their own name from their menu; the family still sees the team", async ({ browser, lang, request }) => {
  const a = ADMIN_STRINGS[lang];
  const m = MESSAGE_STRINGS[lang];
  const id = unique(lang);
  const facilitator = await invitedFacilitator(request, `e2e-day-name-${id}@hikaya.test`);
  const person = await family(request, lang, `Hi ${id}`);
  const fac = await consoleAs(browser, facilitator, lang);
  await fac.page.goto(`/admin/inbox/${person.userId}`);
  await fac.page.getByRole("button", { name: a.nav.openMenu }).click();
  const menu = fac.page.getByRole("navigation", { name: a.nav.label });
  await menu.getByRole("button", { name: a.nav.yourName }).click();
  const name = `Huda ${id}`;
  await menu.getByLabel(a.team.displayName).fill(name);
  await snap(fac.page, lang, "day-own-name");
  await menu.getByRole("button", { name: a.team.saveName }).click();
  await expect(menu.getByRole("status")).toHaveText(a.team.nameSaved);
  await fac.page.getByRole("button", { name: a.nav.closeMenu }).first().click();

  const reply = `We are here ${id}`;
  const composer = fac.page.getByRole("combobox", { name: m.placeholder });
  await composer.fill(reply);
  await fac.page.getByRole("button", { name: m.send }).click();
  await expect.poll(async () => (await listMessages(request, person)).at(-1)?.message).toBe(reply);

  // A colleague's console names her on the reply; the family's API and screen never do.
  const admin = await consoleAs(browser, await facilitatorSession(request), lang);
  await admin.page.goto(`/admin/inbox/${person.userId}`);
  await expect(admin.page.locator("li.bubble-row", { hasText: reply })).toContainText(name);
  expect(JSON.stringify(await listMessages(request, person))).not.toContain(name);
  await familySees(browser, person, lang, reply, name, "day-family-sees-team");
  await admin.context.close();
  await fac.context.close();
});
