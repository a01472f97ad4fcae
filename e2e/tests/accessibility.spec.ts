import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { createChatUser, facilitatorSession, MESSAGE_STRINGS, replyAsFacilitator } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

// Every family screen and state, in both languages (one project each), through axe-core: no serious or critical
// violation. One test per group of screens, so a failure names its screen and the others still run.

interface Screen {
  name: string;
  lang?: string;
  path: string;
  /** What must be on screen before axe reads it (beyond the page's heading). */
  ready?: (page: Page) => Promise<void>;
}

async function violations(page: Page, screen: Screen): Promise<string[]> {
  await page.goto(screen.path);
  // The Arabic-only screens switch the app to Arabic and the choice sticks; each screen starts in the project's
  // language again (the Arabic-only screens still show Arabic, as they do for everyone).
  await page.evaluate((lang) => localStorage.setItem("i18nextLng", lang), screen.lang ?? "en");
  await page.reload();
  await expect(page.locator("h1").first()).toBeAttached();
  await screen.ready?.(page);
  // Fonts change the measured sizes and so the contrast axe computes; read the screen as the person sees it.
  await page.evaluate(() => document.fonts.ready);
  // A toast fading in is half its colour for 180 ms; axe would measure that frame, not what the person reads.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${screen.name}: ${v.id} (${v.impact}): ${v.nodes
          .slice(0, 4)
          .map((n) => `${n.target.join(" ")} ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`)
          .join("; ")}`,
    );
}

/** The person's session where the app keeps it, before any script of the page runs. */
async function signedIn(page: Page, person: { token: string; userId: string }) {
  await page.addInitScript(
    ({ token, userId }) => {
      localStorage.setItem("token", token);
      localStorage.setItem("userId", userId);
    },
    { token: person.token, userId: person.userId },
  );
}

/** The form's error state: sent empty, each field says what it needs. */
async function submitEmpty(page: Page) {
  await page.locator("form button[type=submit]").first().click();
  await expect(page.locator(".field__error").first()).toBeVisible();
}

async function sweep(page: Page, lang: string, shot: (name: string) => Promise<void>, screens: Screen[]) {
  const found: string[] = [];
  for (const screen of screens) {
    found.push(...(await violations(page, { ...screen, lang })));
    await shot(`a11y-${screen.name}`);
  }
  expect(found).toEqual([]);
}

test.describe("accessibility sweep", () => {
  test.setTimeout(120_000);

  test("signed-out screens", async ({ page, lang, shot }) => {
    await sweep(page, lang, shot, [
      { name: "landing", path: "/landing" },
      { name: "login", path: "/login", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "login-errors", path: "/login", ready: submitEmpty },
      { name: "register", path: "/register", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "arabic-register", path: "/arabic-register", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "forgot-password", path: "/forgot-password", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "verify-otp", path: "/send-otp/00000000-0000-4000-8000-000000000000" },
      { name: "reset-password", path: "/reset-password" },
      { name: "contact", path: "/contact", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "contact-errors", path: "/contact", ready: submitEmpty },
      { name: "arabic-register-errors", path: "/arabic-register", ready: submitEmpty },
      { name: "characters", path: "/character", ready: (p) => expect(p.locator("canvas, svg").first()).toBeVisible() },
      { name: "arabic-characters", path: "/arabic-character" },
      { name: "terms", path: "/termandcondtion", ready: (p) => expect(p.locator("canvas").first()).toBeVisible() },
      { name: "privacy", path: "/privacypolicy", ready: (p) => expect(p.locator("canvas").first()).toBeVisible() },
      { name: "maintenance", path: "/maintenance" },
      { name: "not-found", path: "/no-such-screen" },
    ]);
  });

  test("signed-in screens", async ({ page, lang, request, shot }) => {
    const person = await createChatUser(request);
    await signedIn(page, person);
    const headers = { authorization: `Bearer ${person.token}` };
    // The person's own message and the team's reply: both bubbles, with their times, are on the chat screen.
    const sent = await request.post("/api/message/send", { headers, data: { message: "Hello", messageType: "text" } });
    expect(sent.status(), await sent.text()).toBe(200);
    const staff = await facilitatorSession(request);
    await replyAsFacilitator(request, staff.token, person.userId, "Welcome");
    const list = (await (await request.get("/api/stories", { headers })).json()) as { id: string; order: number }[];
    const first = list.sort((a, b) => a.order - b.order)[0]?.id ?? "";
    expect(first).not.toBe("");

    await sweep(page, lang, shot, [
      { name: "home", path: "/", ready: (p) => expect(p.locator(".story-card").first()).toBeVisible() },
      { name: "story", path: `/story/${first}` },
      { name: "questions", path: `/questions/${first}/1` },
      { name: "add-website", path: `/add-website/${first}/1` },
      { name: "recording", path: `/start-recording/${first}/1` },
      { name: "recording-2", path: `/start-recording2/${first}/17` },
      { name: "message-now", path: "/message-now" },
      { name: "user-home", path: "/user-home", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "chat", path: "/chats", ready: (p) => expect(p.getByText("Welcome")).toBeVisible() },
      { name: "edit-profile", path: "/edit-profile", ready: (p) => expect(p.locator("form").first()).toBeVisible() },
      { name: "change-password", path: "/change-password", ready: (p) => expect(p.locator("form")).toBeVisible() },
      { name: "whatsapp-opt-in", path: "/whatsapp-otp" },
      { name: "keepsake", path: "/keepsake" },
      { name: "family", path: "/family" },
    ]);
  });

  test("the menu open", async ({ page, lang, request, shot }) => {
    const person = await createChatUser(request);
    await signedIn(page, person);
    await sweep(page, lang, shot, [
      {
        name: "menu",
        path: "/",
        ready: async (p) => {
          await p.locator(".top-bar button").first().click();
          await expect(p.getByRole("dialog").or(p.locator("nav")).first()).toBeVisible();
        },
      },
    ]);
  });
  test("the empty conversation", async ({ page, lang, request, shot }) => {
    // A person who has not written yet: the chat's note ("Say hello!") on the chat's background.
    const person = await createChatUser(request);
    await signedIn(page, person);
    const empty = MESSAGE_STRINGS[lang].empty;
    await sweep(page, lang, shot, [
      { name: "chat-empty", path: "/chats", ready: (p) => expect(p.getByText(empty)).toBeVisible() },
    ]);
  });
});

test("the account screens' title bar hides what scrolls under it", async ({ page, request, shot }) => {
  const person = await createChatUser(request);
  await signedIn(page, person);
  await page.goto("/edit-profile");
  await expect(page.locator("form").first()).toBeVisible();
  await page.mouse.wheel(0, 400);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  // Sticky and opaque: a transparent bar printed the title over the labels scrolled beneath it.
  const background = await page.locator(".title-bar").evaluate((bar) => getComputedStyle(bar).backgroundColor);
  // rgba(…, a) or color(srgb … / a) carry an alpha below 1 when see-through; rgb(…) and color(srgb r g b) do not.
  const alpha = /rgba\(.*,\s*([\d.]+)\)|\/\s*([\d.]+)\)/.exec(background);
  expect(Number(alpha?.[1] ?? alpha?.[2] ?? 1), background).toBe(1);
  await shot("edit-profile-scrolled");
});
