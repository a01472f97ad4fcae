import { mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Keepsake } from "@hikaya/contracts";
import type { Locator } from "@playwright/test";
import { FAMILY_TEXTS } from "../../apps/server/src/modules/keepsake/family-page.ts";
import arKeepsake from "../../apps/web/src/locales/ar/keepsake.json" with { type: "json" };
import enKeepsake from "../../apps/web/src/locales/en/keepsake.json" with { type: "json" };
import { adminToken, Console } from "../pages/admin.ts";
import { auth, createUser, expectAccessible, recordThought, STRINGS, signIn, storyByOrder, watchUpTo } from "../pages/journey.ts";
import { expect, type Page, test } from "../support/fixtures.ts";

const KEEPSAKE = { en: enKeepsake, ar: arKeepsake } as const;
const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? "");

/** Holds a hold-to-record button down for a moment, as a finger would (Chromium's microphone is a fake one). */
async function holdToRecord(page: Page, scope: Locator, name: string) {
  // Its name changes while it records, so it is found by its pressed state, after checking its name.
  const button = scope.locator("button[aria-pressed]");
  await expect(button).toHaveAccessibleName(name);
  await button.scrollIntoViewIfNeeded();
  const box = await button.boundingBox();
  if (!box) throw new Error(`no ${name} button`);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await expect(button).toHaveAttribute("aria-pressed", "true");
  await page.waitForTimeout(1500);
  await page.mouse.up();
}

test("relatives reply and ask from the link they have; the storyteller shows and answers", async ({
  page,
  request,
  browser,
  lang,
  shot,
}) => {
  test.setTimeout(120_000);
  const k = KEEPSAKE[lang];
  const f = FAMILY_TEXTS[lang];
  const person = await createUser(request);
  await watchUpTo(request, person, 1);
  const first = await storyByOrder(request, person, 1);
  await recordThought(request, person, first.id);
  const shared = await request.post("/api/keepsake/share", { headers: auth(person), data: { expiry: "year", language: lang } });
  expect(shared.status()).toBe(200);
  const links = ((await shared.json()) as Keepsake).links;
  const bookUrl = new URL(links.find((l) => l.scope === "book")?.url ?? "").pathname;
  const voiceUrl = new URL(links.find((l) => l.scope === "voice")?.url ?? "").pathname;
  const relativeName = lang === "ar" ? "ليلى" : "Lina";
  const askerName = lang === "ar" ? "عمر" : "Omar";
  const question = lang === "ar" ? "أين كانت تعيش جدتي وهي صغيرة؟" : "Where did grandma live as a girl?";
  const phone = `+96279${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const shots = resolve(import.meta.dirname, "..", "screenshots", lang);
  mkdirSync(shots, { recursive: true });

  // A relative with no account opens the voice's link and records a reply.
  const relative = await browser.newContext({
    locale: lang === "ar" ? "ar" : "en-GB",
    viewport: { width: 390, height: 844 },
    permissions: ["microphone"],
  });
  const listener = await relative.newPage();
  expect((await listener.goto(voiceUrl))?.status()).toBe(200);
  await listener.getByText(f.reply, { exact: true }).click();
  const replyForm = listener.locator("form#reply-0");
  await replyForm.getByLabel(f.name).fill(relativeName);
  await expect(replyForm.getByText(f.consent)).toBeVisible();
  await holdToRecord(listener, replyForm, f.hold);
  await expect(replyForm.locator("audio")).toHaveCount(1);
  await expect(replyForm.getByRole("button", { name: f.again })).toBeVisible();
  await listener.screenshot({ path: resolve(shots, "family-reply.png") });
  await expectAccessible(listener);
  await replyForm.getByRole("button", { name: f.send }).click();
  await expect(listener.getByText(f.thanks)).toBeVisible();
  await relative.close();

  // Another relative's phone runs no script: the typed question posts as a plain form, then a thank-you page.
  const plain = await browser.newContext({
    locale: lang === "ar" ? "ar" : "en-GB",
    viewport: { width: 390, height: 844 },
    javaScriptEnabled: false,
  });
  const asker = await plain.newPage();
  await asker.goto(bookUrl);
  const ask = asker.locator("form#ask");
  await expect(ask.getByRole("button", { name: f.hold })).toBeHidden();
  await ask.getByLabel(f.name).fill(askerName);
  await ask.getByLabel(f.question).fill(question);
  await ask.getByLabel(f.phone).fill(phone);
  await asker.screenshot({ path: resolve(shots, "family-ask.png"), fullPage: true });
  await ask.getByRole("button", { name: f.send }).click();
  await expect(asker.getByRole("heading", { name: f.thanksTitle })).toBeVisible();
  await expect(asker.getByText(f.thanksPhone)).toBeVisible();
  await expect(asker.locator("html")).toHaveAttribute("lang", lang);

  // The storyteller finds both under "From your family", with the count of new ones in the menu.
  await signIn(page, person);
  await page.goto("/");
  await page.getByRole("button", { name: STRINGS[lang].menu.open }).click();
  const item = page.getByRole("button", { name: new RegExp(STRINGS[lang].menu.family) });
  await expect(item).toContainText("2");
  await item.click();
  await expect(page).toHaveURL(/\/family$/);
  const cards = page.locator(".family-card");
  await expect(cards).toHaveCount(2);
  await expectAccessible(page);
  const replyCard = cards.filter({ hasText: relativeName });
  const questionCard = cards.filter({ hasText: askerName });
  await expect(questionCard).toContainText(question);
  await expect(replyCard.locator("audio")).toHaveCount(1);
  await shot("family-messages");

  await replyCard.getByRole("button", { name: k.family.show }).click();
  await expect(replyCard).toContainText(k.family.status.shown);
  await holdToRecord(page, questionCard, k.family.hold);
  await expect(questionCard.locator(".family-answer audio")).toHaveCount(1);
  await questionCard.getByRole("button", { name: k.family.send }).click();
  await expect(questionCard).toContainText(k.family.status.answered);
  await expect(questionCard.getByText(k.family.yourAnswer, { exact: true })).toBeVisible();

  // The book, printed again, has the answer under its question.
  await page.goto("/keepsake");
  const book = page.getByRole("article", { name: k.book.label });
  await expect(book.getByRole("heading", { name: k.book.familyQuestions })).toBeVisible();
  await expect(book.getByText(fill(k.book.asked, { name: askerName }))).toBeVisible();
  await expect(book.getByText(question)).toBeVisible();
  await expect(book.getByText(fill(k.book.reply, { name: relativeName }))).toBeVisible();
  await book.getByRole("heading", { name: k.book.familyQuestions }).scrollIntoViewIfNeeded();
  await shot("family-book");

  // "Download everything": a ZIP with the recordings, the answer and an index in the person's language.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: k.download.button }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("hikaya-keepsake.zip");
  const zip = readFileSync(await download.path());
  const names = zip.toString("latin1");
  for (const name of ["index.html", "story-01/voice-01.", "family/answer-01.", "family/reply-01."]) expect(names).toContain(name);

  // The asker was texted, in the book's language, with the link that now plays the answer.
  const admin = await adminToken(request);
  const outbox = await request.get(`/api/admin/sms-outbox?q=${encodeURIComponent(phone)}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  const messages = ((await outbox.json()) as { messages: { recipient: string; body: string }[] }).messages;
  expect(messages).toHaveLength(1);
  expect(messages[0]?.recipient).toBe(phone);
  expect(messages[0]?.body).toContain(`${bookUrl}#answer-`);
  const link = new URL((messages[0]?.body.match(/https?:\/\/\S+/) ?? [""])[0]);
  await asker.goto(link.pathname);
  await expect(
    asker.getByRole("heading", { name: lang === "ar" ? "أسئلة من عائلتك" : "Questions from your family" }),
  ).toBeVisible();
  await expect(asker.getByText(question)).toBeVisible();

  // The family turns the book's link off: it takes no more messages.
  const bookLinkId = links.find((l) => l.scope === "book")?.id ?? "";
  expect((await request.post(`/api/keepsake/links/${bookLinkId}/revoke`, { headers: auth(person) })).status()).toBe(200);
  await asker.goto(bookUrl);
  await expect(asker.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  const refused = await request.post(`${bookUrl}/messages`, {
    multipart: { kind: "question", name: askerName, text: question },
    headers: { accept: "application/json" },
  });
  expect(refused.status()).toBe(404);
  await plain.close();
});

test("an operator removes a relative's abusive message from beside the family's keepsake", async ({
  page,
  request,
  lang,
  shot,
}) => {
  const person = await createUser(request);
  await watchUpTo(request, person, 1);
  await recordThought(request, person, (await storyByOrder(request, person, 1)).id);
  const shared = await request.post("/api/keepsake/share", { headers: auth(person), data: { expiry: "year", language: lang } });
  const bookUrl = new URL(((await shared.json()) as Keepsake).links.find((l) => l.scope === "book")?.url ?? "").pathname;
  const spammer = `Spam ${Date.now().toString(36)}`;
  const sent = await request.post(`${bookUrl}/messages`, {
    multipart: { kind: "reply", name: spammer, text: "Buy cheap watches" },
    headers: { accept: "application/json" },
  });
  expect(sent.status()).toBe(201);

  await page.setViewportSize({ width: 1280, height: 860 });
  const c = new Console(page, lang);
  await c.signIn();
  await c.submitSignIn();
  await page.goto(`/admin/users/${person.userId}/keepsake`);
  const list = page.getByRole("region", { name: c.s.keepsake.familyTitle });
  await expect(list.getByText(spammer)).toBeVisible();
  await list.scrollIntoViewIfNeeded();
  await shot("console-family-messages");
  await list.getByRole("button", { name: `${c.s.common.delete}: ${spammer}` }).click();
  const dialog = page.getByRole("dialog", { name: fill(c.s.keepsake.familyDeleteTitle, { name: spammer }) });
  await dialog.getByRole("button", { name: c.s.common.delete }).click();
  await expect(list.getByText(c.s.keepsake.familyEmpty)).toBeVisible();
  const left = await request.get("/api/family-messages", { headers: auth(person) });
  expect(((await left.json()) as { messages: unknown[] }).messages).toEqual([]);
});
