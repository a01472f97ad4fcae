import type { Keepsake } from "@hikaya/contracts";
import type { Page } from "@playwright/test";
import { Console } from "../pages/admin.ts";
import { auth, familyWithThought } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

/** Plays the listening page's audio for a moment, muted: how far it got (0 when it could not play). */
const playedSeconds = (listener: Page) =>
  listener.locator("audio").evaluate(async (audio: HTMLAudioElement) => {
    audio.muted = true;
    await audio.play();
    await new Promise((resolve) => setTimeout(resolve, 600));
    return audio.currentTime;
  });

test("blocking a family in the console suspends their shared voice; unblocking brings the same link back", async ({
  page,
  request,
  browser,
  lang,
  shot,
}) => {
  test.setTimeout(90_000);
  // A family who recorded a thought and shared its voice.
  const name = `Shared ${lang} ${Date.now().toString(36)}`;
  const { person } = await familyWithThought(request, name);
  const shared = await request.post("/api/keepsake/share", { headers: auth(person), data: { expiry: "never", language: lang } });
  expect(shared.status(), await shared.text()).toBe(200);
  const voiceLink = ((await shared.json()) as Keepsake).links.find((l) => l.scope === "voice");
  if (!voiceLink) throw new Error("no voice link was shared");
  const path = new URL(voiceLink.url).pathname;

  // A relative with no account opens it and the voice plays.
  const relative = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    locale: lang === "ar" ? "ar" : "en-GB",
  });
  const listener = await relative.newPage();
  expect((await listener.goto(path))?.status()).toBe(200);
  expect(await playedSeconds(listener)).toBeGreaterThan(0);
  const audio = new URL((await listener.locator("audio").getAttribute("src")) ?? "", listener.url()).toString();

  // The operator blocks the family from their page in the console.
  const c = new Console(page, lang);
  const s = c.s;
  await c.openPerson(person.userId, name);
  await page.getByRole("button", { name: s.people.block, exact: true }).click();
  await page
    .getByRole("dialog", { name: s.people.blockTitle })
    .getByRole("button", { name: s.people.block, exact: true })
    .click();
  await expect(c.toast(s.people.blocked)).toBeVisible();

  // The same link now answers the not-found page, in both languages, and its audio is refused.
  expect((await listener.goto(path))?.status()).toBe(404);
  await expect(listener.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  await expect(listener.getByRole("heading", { name: "هذا الرابط لا يعمل" })).toBeVisible();
  expect((await listener.request.get(audio)).status()).toBe(404);
  await shot("keepsake-link-suspended");

  // Unblocked: suspended, not revoked, so the same link plays again.
  await page.getByRole("button", { name: s.people.unblock }).click();
  await expect(c.toast(s.people.unblocked)).toBeVisible();
  expect((await listener.goto(path))?.status()).toBe(200);
  expect(await playedSeconds(listener)).toBeGreaterThan(0);
  expect((await listener.request.get(audio)).status()).toBe(200);
  await relative.close();
});
