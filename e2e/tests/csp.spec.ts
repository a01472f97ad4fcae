import type { Page } from "@playwright/test";
import { storyByOrder } from "../pages/journey.ts";
import { type BrowserSession, createChatUser, facilitatorSession, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

/**
 * The Content-Security-Policy holds on every screen: the user app (as a visitor and signed in) and the console,
 * in English and Arabic. A violation shows as a `securitypolicyviolation` event in the page and as a console
 * error ("Refused to …"); either fails the test.
 */

// Each test walks a dozen screens.
test.describe.configure({ timeout: 120_000 });

interface Violation {
  where: string;
  what: string;
}

async function watchViolations(page: Page, found: Violation[]) {
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      w.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on("console", (message) => {
    const text = message.text();
    if (
      message.type() === "error" &&
      /Content Security Policy|Refused to (load|execute|apply|connect|frame|create)/i.test(text)
    ) {
      found.push({ where: page.url(), what: text });
    }
  });
}

async function visit(page: Page, path: string, found: Violation[]) {
  await page.goto(path, { waitUntil: "load" });
  // Not "networkidle": the console's live inbox holds a stream open. Lazy screens and their media settle in this time.
  await page.waitForTimeout(800);
  const events = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
  for (const what of events) found.push({ where: path, what });
}

test("no CSP violation on the visitor's screens", async ({ page }) => {
  const found: Violation[] = [];
  await watchViolations(page, found);
  for (const path of [
    "/landing",
    "/login",
    "/register",
    "/forgot-password",
    "/contact",
    "/termandcondtion",
    "/privacypolicy",
    "/character",
    "/no-such-screen",
    "/admin/login",
  ]) {
    await visit(page, path, found);
  }
  expect(found).toEqual([]);
});

test("no CSP violation on a signed-in person's screens", async ({ page, request, lang }) => {
  const found: Violation[] = [];
  const user = await createChatUser(request);
  const session: BrowserSession = user;
  await storeSession(page, session, lang);
  await watchViolations(page, found);
  const first = await storyByOrder(request, { token: user.token, userId: user.userId, phone: user.phone }, 1);
  for (const path of [
    "/",
    `/story/${first.id}`,
    `/questions/${first.id}/0`,
    "/chats",
    "/user-home",
    "/edit-profile",
    "/change-password",
    "/message-now",
    "/contact",
  ]) {
    await visit(page, path, found);
  }
  expect(found).toEqual([]);
});

test("no CSP violation on the console's screens", async ({ page, request, lang }) => {
  const found: Violation[] = [];
  await storeSession(page, await facilitatorSession(request), lang, "console");
  await watchViolations(page, found);
  const person = await createChatUser(request);
  const first = await storyByOrder(request, { token: person.token, userId: person.userId, phone: person.phone }, 1);
  for (const path of [
    "/admin/stories",
    `/admin/stories/${first.id}`,
    "/admin/characters",
    "/admin/media",
    "/admin/settings",
    "/admin/users",
    `/admin/users/${person.userId}`,
    "/admin/contact",
    "/admin/outbox",
    "/admin/analytics",
    "/admin/audit",
    "/admin/inbox",
  ]) {
    await visit(page, path, found);
  }
  expect(found).toEqual([]);
});
