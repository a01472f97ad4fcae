import { ChatPane, consoleContext, createChatUser, facilitatorSession, listMessages, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

/**
 * An operator with the console open in three tabs of one browser (issue 28). Each console page used to hold up to
 * three live streams: over HTTP/1.1 two tabs used all six connections to the host, replies stayed "sending" and
 * pages stopped loading, and the server refuses a person's sixth stream. The tabs now share one stream.
 */
test("three console tabs in one browser each reply to a family, and each reply is delivered", async ({
  browser,
  baseURL,
  lang,
  request,
}) => {
  test.setTimeout(90_000);
  const family = await createChatUser(request);
  const staff = await facilitatorSession(request);
  const unique = `${lang}-${Date.now().toString(36)}`;
  const hello = `Hello from the family ${unique}`;
  const sent = await request.post("/api/message/send", {
    headers: { authorization: `Bearer ${family.token}` },
    data: { message: hello, messageType: "text" },
  });
  expect(sent.status(), await sent.text()).toBe(200);

  const context = await consoleContext(browser, baseURL ?? "", lang);
  await storeSession(context, staff, lang, "console");
  try {
    const panes: ChatPane[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await context.newPage();
      await page.goto(`/admin/inbox/${family.userId}`);
      const pane = new ChatPane(page, lang, page.locator(".inbox-conversation__chat"));
      await expect(pane.bubble(hello)).toBeVisible();
      panes.push(pane);
    }

    const replies = panes.map((_, i) => `Reply ${i + 1} from tab ${i + 1} ${unique}`);
    for (const [i, pane] of panes.entries()) {
      const reply = replies[i] ?? "";
      await pane.sendText(reply);
      // Stored, not left "sending": a stored message shows its time.
      await expect(pane.bubble(reply).locator("time")).toBeVisible();
    }
    // Every tab follows the conversation live: each sees the other tabs' replies and the family's next message.
    const later = `The family again ${unique}`;
    const again = await request.post("/api/message/send", {
      headers: { authorization: `Bearer ${family.token}` },
      data: { message: later, messageType: "text" },
    });
    expect(again.status(), await again.text()).toBe(200);
    for (const pane of panes) {
      for (const reply of replies) await expect(pane.bubble(reply)).toHaveCount(1);
      await expect(pane.bubble(later)).toBeVisible();
    }
    const stored = (await listMessages(request, family)).map((m) => m.message);
    for (const reply of replies) expect(stored).toContain(reply);
  } finally {
    await context.close();
  }
});
