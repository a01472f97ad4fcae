import { createChatUser, INBOX_STRINGS, invitedFacilitator, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";
import { seedWhatsAppMessage } from "../support/seed-inbox.ts";

/**
 * The console shows how a family writes (issue 40): a WhatsApp mark on a message that came by WhatsApp, and whether
 * a reply goes back there ("WhatsApp window open until 18:05") or the window has closed. The WhatsApp message is
 * written straight into the server's database: the e2e server has no provider to post the webhook.
 */
test("a conversation shows the WhatsApp mark and whether its window is open", async ({ page, lang, request, shot }) => {
  const s = INBOX_STRINGS[lang];
  const unique = `${lang}-${Date.now().toString(36)}`;
  const [recent, late] = [await createChatUser(request), await createChatUser(request)];
  for (const family of [recent, late]) {
    const sent = await request.post("/api/message/send", {
      headers: { authorization: `Bearer ${family.token}` },
      data: { message: `From the app ${unique}`, messageType: "text" },
    });
    expect(sent.status(), await sent.text()).toBe(200);
  }
  seedWhatsAppMessage(recent.userId, `Salam from the phone ${unique}`, 60);
  seedWhatsAppMessage(late.userId, `Late salam ${unique}`, 25 * 60);
  const staff = await invitedFacilitator(request, `e2e-whatsapp-${unique}@hikaya.test`);
  await storeSession(page, staff, lang, "console");

  await page.goto(`/admin/inbox/${recent.userId}`);
  const chat = page.locator(".inbox-conversation__chat");
  const byWhatsApp = chat.getByRole("listitem").filter({ hasText: `Salam from the phone ${unique}` });
  // The mark sits with the message's time; a message from the app has none.
  await expect(byWhatsApp.locator(".bubble__meta")).toContainText(s.whatsapp.mark);
  await expect(
    chat
      .getByRole("listitem")
      .filter({ hasText: `From the app ${unique}` })
      .locator(".bubble__meta"),
  ).not.toContainText(s.whatsapp.mark);
  // Open for 23 more hours: the time is the window's end on a 24-hour clock.
  const open = new RegExp(`^${s.whatsapp.open.replace("{{time}}", "\\d\\d:\\d\\d")}$`);
  await expect(chat.locator(".inbox-conversation__whatsapp")).toHaveText(open);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot("inbox-whatsapp-open");

  await page.goto(`/admin/inbox/${late.userId}`);
  await expect(
    chat
      .getByRole("listitem")
      .filter({ hasText: `Late salam ${unique}` })
      .locator(".bubble__meta"),
  ).toContainText(s.whatsapp.mark);
  await expect(chat.locator(".inbox-conversation__whatsapp")).toHaveText(s.whatsapp.closed);
  await shot("inbox-whatsapp-closed");
});
