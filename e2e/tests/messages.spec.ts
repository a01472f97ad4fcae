import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ChatPane,
  consoleContext,
  createChatUser,
  facilitatorSession,
  INBOX_STRINGS,
  listMessages,
  MESSAGE_STRINGS,
  replyAsFacilitator,
  startProxy,
  storeSession,
} from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";
import { startServer } from "../support/global-setup.ts";

test.describe("Message Center", () => {
  test("a new person fills the profile form on /user-home and reaches the chat", async ({ page, lang, request, shot }) => {
    const s = MESSAGE_STRINGS[lang];
    const user = await createChatUser(request, "", false);
    await storeSession(page, user, lang);
    await page.goto("/user-home");
    await expect(page.getByRole("heading", { name: s.profile.title })).toBeVisible();
    await expect(page.locator("video")).toHaveAttribute("src", /\S/);
    await page.getByLabel(s.profile.name).fill(lang === "ar" ? "ليلى" : "Layla");
    await page.getByLabel(s.profile.city).fill(lang === "ar" ? "عمّان" : "Amman");
    await page.getByRole("radio", { name: s.profile.female }).check();
    await page.getByRole("radio", { name: s.profile.ages["31-50"] }).check();
    await shot("user-home-profile-form");
    await page.getByRole("button", { name: s.profile.submit }).click();
    await expect(page).toHaveURL(/\/chats$/);
    const chat = new ChatPane(page, lang);
    await expect(chat.input).toBeVisible();
    await expect(chat.input).toHaveAttribute("placeholder", s.placeholder);
    // The greeting audio comes first.
    await expect(chat.voiceNotes.first()).toBeVisible();
    // Sending with no text and no recording does nothing.
    await page.getByRole("button", { name: s.send }).click();
    expect(await listMessages(request, user)).toHaveLength(0);
    await shot("chats-empty");
    // A complete profile goes straight on to the chat.
    await page.goto("/user-home");
    await expect(page).toHaveURL(/\/chats$/);
  });

  test("a family and a facilitator exchange text and voice live, both ways", async ({
    page,
    browser,
    lang,
    request,
    baseURL,
    shot,
  }) => {
    test.setTimeout(120_000);
    const inbox = INBOX_STRINGS[lang];
    const user = await createChatUser(request);
    const staff = await facilitatorSession(request);

    await storeSession(page, user, lang);
    await page.goto("/chats");
    const family = new ChatPane(page, lang);
    await expect(family.input).toBeVisible();

    const consoleCtx = await consoleContext(browser, baseURL ?? "", lang);
    await storeSession(consoleCtx, staff, lang, "console");
    const admin = await consoleCtx.newPage();
    try {
      // The family writes first; the conversation shows up in the inbox with an unread count.
      const hello = lang === "ar" ? "مرحبًا من العائلة" : "Hello from the family";
      await family.sendText(hello);
      await expect(family.bubble(hello)).toBeVisible();
      await admin.goto("/admin/inbox");
      await expect(admin.getByRole("heading", { level: 1, name: inbox.title })).toBeVisible();
      const item = admin.getByRole("link", { name: /Layla Haddad/ }).first();
      await expect(item).toBeVisible();
      await expect(item).toContainText("1");
      await item.click();
      const staffPane = new ChatPane(admin, lang, admin.locator(".inbox-conversation__chat"));
      await expect(staffPane.bubble(hello)).toBeVisible();
      await expect(admin.getByText(inbox.live, { exact: true })).toBeVisible();

      // Facilitator → family, live.
      const reply = lang === "ar" ? "أهلًا! كيف حالكم اليوم؟" : "Welcome! How are you all today?";
      await staffPane.sendText(reply);
      await expect(family.bubble(reply)).toBeVisible();

      // Family → facilitator, live, with text that must stay text.
      const tricky = `<img src=x onerror="document.title='pwned'"> <b>${lang}</b>`;
      await family.sendText(tricky);
      await expect(staffPane.bubble(tricky)).toBeVisible();
      await expect(family.bubble(tricky)).toContainText("<img src=x");
      expect(await page.title()).not.toBe("pwned");
      expect(await admin.title()).not.toBe("pwned");

      // Voice both ways.
      await family.recordAndSend(
        1500,
        () => shot("chats-recording"),
        () => shot("chats-recorded-take"),
      );
      await expect(staffPane.voiceNotes).toHaveCount(1);
      await staffPane.recordAndSend();
      await expect(family.voiceNotes).toHaveCount(3); // greeting + two voice notes
      // The family can play the facilitator's voice note (private, fetched with the token).
      const played = page.waitForResponse((r) => /\/api\/messages\/audio\/\d+$/.test(r.url()) && r.status() === 200);
      await family.voiceNotes.last().click();
      await played;

      // Own messages at the inline end: right in English, left in Arabic; the other side opposite.
      const width = page.viewportSize()?.width ?? 390;
      const mine = await family.bubble(hello).locator(".bubble").boundingBox();
      const theirs = await family.bubble(reply).locator(".bubble").boundingBox();
      if (!mine || !theirs) throw new Error("bubbles not laid out");
      if (lang === "en") {
        expect(mine.x + mine.width).toBeGreaterThan(width - 40);
        expect(theirs.x).toBeLessThan(40);
      } else {
        expect(mine.x).toBeLessThan(40);
        expect(theirs.x + theirs.width).toBeGreaterThan(width - 40);
      }
      await expect(family.bubble(reply).locator("time")).toHaveText(/^\d\d:\d\d (AM|PM|ص|م)$/);

      await shot("chats-conversation");
      await admin.screenshot({ path: join(import.meta.dirname, "..", "screenshots", lang, "inbox-conversation.png") });

      // Everything arrived once: five messages on each side, nothing doubled.
      const stored = await listMessages(request, user);
      expect(stored.map((m) => m.messageType)).toEqual(["text", "text", "text", "audio", "audio"]);
      await expect(family.list.locator("li.bubble-row")).toHaveCount(6); // greeting + 5
      await expect(staffPane.list.locator("li.bubble-row")).toHaveCount(5);
      // The console on a phone: the conversation alone, with a way back to the list.
      await admin.setViewportSize({ width: 390, height: 844 });
      await expect(admin.getByRole("link", { name: inbox.back })).toBeVisible();
      await admin.screenshot({ path: join(import.meta.dirname, "..", "screenshots", lang, "inbox-conversation-phone.png") });
      await admin.getByRole("link", { name: inbox.back }).click();
      await expect(admin.getByRole("heading", { level: 1, name: inbox.title })).toBeVisible();
      await admin.screenshot({ path: join(import.meta.dirname, "..", "screenshots", lang, "inbox-list-phone.png") });
    } finally {
      await consoleCtx.close();
    }
  });

  test("a message typed offline is queued and sent once when the connection returns", async ({
    page,
    context,
    lang,
    request,
  }) => {
    const s = MESSAGE_STRINGS[lang];
    const user = await createChatUser(request);
    await storeSession(page, user, lang);
    await page.goto("/chats");
    const chat = new ChatPane(page, lang);
    await expect(chat.input).toBeVisible();
    await expect(chat.voiceNotes.first()).toBeVisible();

    await context.setOffline(true);
    await expect(page.getByText(s.offline)).toBeVisible();
    const text = lang === "ar" ? "كُتبت دون اتصال" : "Written while offline";
    await chat.sendText(text);
    await expect(chat.bubble(text)).toContainText(s.queued);
    await context.setOffline(false);
    await expect(chat.bubble(text).locator("time")).toBeVisible({ timeout: 20_000 });
    await expect(chat.bubble(text)).toHaveCount(1);
    const stored = await listMessages(request, user);
    expect(stored.filter((m) => m.message === text)).toHaveLength(1);
  });
});

test.describe("Message Center across a server restart", () => {
  test("the client catches up after the server is killed and restarted: nothing lost, nothing doubled", async ({
    browser,
    lang,
    request,
  }) => {
    test.setTimeout(150_000);
    const s = MESSAGE_STRINGS[lang];
    const dataDir = mkdtempSync(join(tmpdir(), "hikaya-e2e-restart-"));
    const proxy = await startProxy();
    let server = await startServer({ DATA_DIR: dataDir, SEED_DEMO: "true" });
    proxy.setTarget(server.url);
    const context = await browser.newContext({ baseURL: proxy.url, viewport: { width: 390, height: 844 }, locale: lang });
    try {
      const user = await createChatUser(request, proxy.url);
      const staff = await facilitatorSession(request, proxy.url);
      const page = await context.newPage();
      await storeSession(page, user, lang);
      await page.goto("/chats");
      const chat = new ChatPane(page, lang);
      await expect(chat.input).toBeVisible();

      await replyAsFacilitator(request, staff.token, user.userId, "before-1", proxy.url);
      await chat.sendText("family-1");
      // Stored (its time shows) before the facilitator's next reply, which the expected order below puts after it.
      await expect(chat.bubble("family-1").locator("time")).toBeVisible();
      await replyAsFacilitator(request, staff.token, user.userId, "before-2", proxy.url);
      await expect(chat.bubble("before-2")).toBeVisible();

      // Kill the server mid-conversation (no graceful shutdown).
      proxy.setTarget(null);
      server.process.kill("SIGKILL");
      await new Promise((r) => server.process.once("exit", r));
      await chat.sendText("family-while-down");
      await expect(chat.bubble("family-while-down")).toContainText(s.queued);

      // Same data, a new process; a facilitator writes before the browser has reconnected.
      server = await startServer({ DATA_DIR: dataDir, SEED_DEMO: "true" });
      await replyAsFacilitator(request, staff.token, user.userId, "after-restart", server.url);
      proxy.setTarget(server.url);

      await expect(chat.bubble("after-restart")).toBeVisible({ timeout: 30_000 });
      await expect(chat.bubble("family-while-down").locator("time")).toBeVisible({ timeout: 30_000 });
      await replyAsFacilitator(request, staff.token, user.userId, "after-reconnect", proxy.url);
      await expect(chat.bubble("after-reconnect")).toBeVisible();

      // In stored order: the queued message was sent once the browser was back, after "after-restart".
      const expected = ["before-1", "family-1", "before-2", "after-restart", "family-while-down", "after-reconnect"];
      for (const text of expected) await expect(chat.bubble(text)).toHaveCount(1);
      await expect(chat.list.locator("li.bubble-row")).toHaveCount(expected.length + 1); // + greeting
      await expect(chat.list.locator("li.bubble-row .bubble__text")).toHaveText(expected);
      expect((await listMessages(request, user, proxy.url)).map((m) => m.message)).toEqual(expected);
      // A reload shows the same conversation.
      await page.reload();
      await expect(chat.list.locator("li.bubble-row")).toHaveCount(expected.length + 1);
    } finally {
      await context.close();
      proxy.setTarget(null);
      await server.stop();
      await proxy.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
