import { TEXT } from "../pages/account.ts";
import { ADMIN_STRINGS, adminToken } from "../pages/admin.ts";
import { auth, createUser, Journey, STRINGS, signIn, type TestUser, watchUpTo } from "../pages/journey.ts";
import { consoleContext, facilitatorSession, replyAsFacilitator, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

/** A person writes to the team (the token API), as the chat screen does. */
async function write(request: import("@playwright/test").APIRequestContext, user: TestUser, message: string) {
  const res = await request.post("/api/message/send", { headers: auth(user), data: { message, messageType: "text" } });
  expect(res.status(), await res.text()).toBe(200);
}

test.describe("Unread at a glance", () => {
  test("the menu's Message Center shows the unread replies; the console's navigation counts conversations waiting, live", async ({
    page,
    browser,
    lang,
    request,
    baseURL,
    shot,
  }) => {
    test.setTimeout(90_000);
    const s = STRINGS[lang];
    const a = ADMIN_STRINGS[lang];
    const staff = await facilitatorSession(request);

    // The console first: its navigation shows how many conversations wait for a reply, and follows live.
    const consoleCtx = await consoleContext(browser, baseURL ?? "", lang);
    await storeSession(consoleCtx, staff, lang, "console");
    const admin = await consoleCtx.newPage();
    try {
      const firstCount = admin.waitForResponse((r) => r.url().includes("/api/admin/conversations/waiting"));
      await admin.goto("/admin/stories");
      const inboxLink = admin
        .getByRole("navigation", { name: a.nav.label })
        .getByRole("link", { name: new RegExp(`^${a.nav.inbox}`) });
      await expect(inboxLink).toBeVisible();
      // One read that never waits: the badge leaves the page at 0, so a count() then a textContent() could see
      // it before the live recount and then wait on a badge that is gone, for the whole poll.
      const waitingNow = async () =>
        Number((await inboxLink.getByTestId("waiting-count").locator("[aria-hidden]").allTextContents())[0] ?? 0);
      const before = ((await (await firstCount).json()) as { count: number }).count;
      await expect.poll(waitingNow).toBe(before);

      const user = await createUser(request);
      await watchUpTo(request, user, 3); // the Message Center is in the menu after two stories
      await write(request, user, lang === "ar" ? "مرحبًا" : "Hello");
      await expect.poll(waitingNow).toBe(before + 1); // no reload: the live stream
      await expect(inboxLink).toContainText(a.nav.waiting.replace("{{count}}", String(before + 1)));
      await shot("console-nav-waiting");

      // Two replies: the conversation no longer waits, and the person has two unread messages.
      await replyAsFacilitator(request, staff.token, user.userId, lang === "ar" ? "أهلًا بك" : "Welcome");
      await replyAsFacilitator(request, staff.token, user.userId, lang === "ar" ? "كيف نساعدك؟" : "How can we help?");
      await expect.poll(waitingNow).toBe(before);

      await signIn(page, user);
      await page.goto("/");
      const journey = new Journey(page, lang);
      await journey.openMenu();
      const item = page
        .getByRole("dialog", { name: s.menu.label })
        .getByRole("button", { name: new RegExp(s.menu.messageCenter) });
      await expect(item).toContainText("2");
      await expect(item).toContainText(s.menu.unread.replace("{{count}}", "2"));
      await shot("menu-unread");
    } finally {
      await consoleCtx.close();
    }
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test.describe("Reminders", () => {
  test("the operator edits the rules and texts with a preview in both languages, sees the queue, and sends the due ones", async ({
    page,
    lang,
    request,
    shot,
  }) => {
    const a = ADMIN_STRINGS[lang].reminders;
    const token = await adminToken(request);
    const original = await (
      await request.get("/api/admin/reminders/settings", { headers: { authorization: `Bearer ${token}` } })
    ).json();
    const staff = await facilitatorSession(request);
    await storeSession(page, staff, lang, "console");
    try {
      await page.goto("/admin/reminders");
      await expect(page.getByRole("heading", { level: 1, name: a.title })).toBeVisible();
      await expect(page.getByTestId("preview-en")).toContainText("Layla");
      await expect(page.getByTestId("preview-ar")).toContainText("ليلى");
      // Links stay left to right inside the Arabic text (bare, their "=token" ending jumped to the front).
      await expect(page.getByTestId("preview-ar").locator('bdi[dir="ltr"]').first()).toHaveText(/^http\S+$/);
      // Nothing widens the page on a phone (the queue's status tabs once did, in Arabic).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        page.viewportSize()?.width ?? 390,
      );

      const english = page.getByLabel(a.template_en);
      await english.fill("Hi {name}, {story} is waiting: {link} — stop: {stopLink} {promo}");
      const unknown = page.getByText(a.badPlaceholder.replace("{{name}}", "{promo}"));
      await expect(unknown.first()).toBeVisible(); // the preview names the unknown placeholder
      await page.getByRole("button", { name: ADMIN_STRINGS[lang].common.save }).click();
      await expect(unknown).toHaveCount(2); // and so does the field, once saving is refused

      await english.fill("Hi {name}, {story} is waiting: {link} — stop: {stopLink}");
      await expect(page.getByTestId("preview-en")).toHaveText(/^Hi Layla, The Olive Tree is waiting: http/);
      await page.getByLabel(a.maxPerStory).fill("3");
      await page.getByRole("button", { name: ADMIN_STRINGS[lang].common.save }).click();
      await expect(page.getByText(a.saved)).toBeVisible();
      const saved = await (
        await request.get("/api/admin/reminders/settings", { headers: { authorization: `Bearer ${token}` } })
      ).json();
      expect(saved).toMatchObject({
        maxPerStory: 3,
        templates: { en: "Hi {name}, {story} is waiting: {link} — stop: {stopLink}" },
      });

      await expect(page.getByRole("tab", { name: new RegExp(`^${escapeRegExp(a.statuses.sent)}`) })).toBeVisible();
      await page.getByRole("button", { name: a.runNow }).click();
      const result = new RegExp(`^${escapeRegExp(a.ran).replace(/\\\{\\\{\w+\\\}\\\}/g, "\\d+")}$`);
      await expect(page.getByText(result)).toBeVisible();
      await shot("console-reminders");
    } finally {
      // Without the version this test's own save made stale, so the restore is never refused as a conflict.
      const { placeholders: _p, updatedAt: _u, version: _v, ...input } = original;
      const restored = await request.put("/api/admin/reminders/settings", {
        headers: { authorization: `Bearer ${token}` },
        data: input,
      });
      expect(restored.status(), await restored.text()).toBe(200);
    }
  });

  test("replying STOP turns reminders off, and Edit Profile says how and when", async ({ page, lang, request }) => {
    const t = TEXT[lang].account;
    const user = await createUser(request);
    const res = await request.post("/api/reminders/inbound/twilio", {
      form: { From: `+962${user.phone}`, Body: lang === "ar" ? "توقف" : "STOP" },
    });
    expect(res.status()).toBe(200);
    await signIn(page, user);
    await page.goto("/edit-profile");
    await expect(page.getByRole("checkbox", { name: t.register.reminders })).not.toBeChecked();
    const [before] = t.preferences.stoppedVia.reply.split("{{date}}");
    await expect(page.getByTestId("reminders-stopped")).toContainText(before ?? "");
  });
});
