import { ADMIN_STRINGS } from "../pages/admin.ts";
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
      const waitingNow = async () => {
        const badge = inboxLink.getByTestId("waiting-count");
        return (await badge.count()) === 0 ? 0 : Number((await badge.locator("[aria-hidden]").textContent()) ?? "0");
      };
      const before = ((await (await firstCount).json()) as { count: number }).count;
      await expect.poll(waitingNow).toBe(before);

      const user = await createUser(request);
      await watchUpTo(request, user, 3); // the Message Center is in the menu after two stories
      await write(request, user, lang === "ar" ? "مرحبًا" : "Hello");
      await expect(inboxLink.getByTestId("waiting-count")).toContainText(String(before + 1)); // no reload: the live stream
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
