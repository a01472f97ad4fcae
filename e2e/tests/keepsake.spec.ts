import { readFileSync } from "node:fs";
import jsQR from "jsqr";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { PNG } from "pngjs";
import arKeepsake from "../../apps/web/src/locales/ar/keepsake.json" with { type: "json" };
import enKeepsake from "../../apps/web/src/locales/en/keepsake.json" with { type: "json" };
import { auth, createUser, STRINGS, signIn, storyByOrder, watchUpTo } from "../pages/journey.ts";
import { DEMO_FILES } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

const KEEPSAKE = { en: enKeepsake, ar: arKeepsake } as const;
const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? "");
/** Text as pdf.js extracts it may split words and use Arabic presentation forms: compare without either. */
const plain = (text: string) => text.normalize("NFKC").replace(/\s+/g, "");
/** The letters of a text and how often each occurs. */
const letters = (text: string) => {
  const bag = new Map<string, number>();
  for (const c of plain(text)) bag.set(c, (bag.get(c) ?? 0) + 1);
  return bag;
};
/**
 * Whether extracted PDF text holds `expected`. pdf.js gives right-to-left runs in visual order (reversed), and a
 * ligature's letters (لا، لى) in their own order inside it: the reversed text or, failing that, every letter of
 * `expected` as often as it occurs there.
 */
function holds(extracted: string, expected: string): boolean {
  const text = plain(extracted);
  if (text.includes(plain(expected)) || text.includes([...plain(expected)].reverse().join(""))) return true;
  if (!/[\u0600-\u06ff]/.test(expected)) return false;
  const have = letters(extracted);
  return [...letters(expected)].every(([c, n]) => (have.get(c) ?? 0) >= n);
}

test("a family builds, prints and shares their keepsake; a revoked link stops playing", async ({
  page,
  request,
  browser,
  lang,
  shot,
}) => {
  const k = KEEPSAKE[lang];
  const person = await createUser(request);
  await watchUpTo(request, person, 2);
  const first = await storyByOrder(request, person, 1);
  const recorded = await request.post("/api/story/audio/add", {
    headers: auth(person),
    multipart: {
      story: first.id,
      index: "1",
      audio: { name: "audio.mp3", mimeType: "audio/mp4", buffer: readFileSync(DEMO_FILES.answerAudio) },
    },
  });
  expect(recorded.status(), await recorded.text()).toBe(200);

  // The menu offers the keepsake once there is a recording.
  await signIn(page, person);
  await page.goto("/");
  await page.getByRole("button", { name: STRINGS[lang].menu.open }).click();
  await page.getByRole("button", { name: STRINGS[lang].menu.keepsake }).click();
  await expect(page).toHaveURL(/\/keepsake$/);
  await expect(page.getByRole("heading", { name: k.page.heading })).toBeVisible();

  const title = lang === "ar" ? "حكايات جدتنا" : "Our grandmother's stories";
  await page.getByLabel(k.form.title).fill(title);
  await page.getByLabel(k.form.dedication).fill(lang === "ar" ? "إلى أحفادنا" : "For our grandchildren");
  // Their own recording is in; a family member's answer they heard goes in too.
  const boxes = page.getByRole("checkbox");
  await expect(boxes.first()).toBeChecked();
  await boxes.nth(1).check();
  await page.getByLabel(k.share.expiry).selectOption("year");
  await page.getByRole("button", { name: k.share.button }).click();
  await expect(page.getByRole("button", { name: fill(k.links.revoke, { name: k.links.book }) })).toBeVisible();
  const voiceQrs = page.locator(".keepsake-voice .keepsake-qr");
  await expect(voiceQrs).toHaveCount(2);
  await shot("keepsake");

  // The print: page breaks between stories (cover, two stories), the title and Arabic-Indic digits in Arabic.
  const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  expect(doc.numPages).toBeGreaterThanOrEqual(3);
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ("str" in item ? item.str : "")).join(" "));
  }
  expect(holds(pages[0] ?? "", title), pages[0]).toBe(true);
  const one = lang === "ar" ? "١" : "1";
  expect(holds(pages[1] ?? "", fill(k.book.story, { n: one })), pages[1]).toBe(true);
  expect(holds(pages[1] ?? "", first[lang === "ar" ? "titleB" : "title"]), pages[1]).toBe(true);
  expect(holds(pages.at(-1) ?? "", k.book.noVoices), pages.at(-1)).toBe(true);
  // The running title and the page number in the language's digits head and foot the story pages.
  expect(holds(pages[1] ?? "", title), pages[1]).toBe(true);
  expect(plain(pages[1] ?? "")).toContain(lang === "ar" ? "٢" : "2");

  // The first voice's QR code, decoded from the screen, names the address the book printed.
  const qr = voiceQrs.first();
  const png = PNG.sync.read(await qr.locator("img").screenshot());
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  const target = await qr.getAttribute("data-target");
  expect(decoded?.data).toBe(target);
  const url = decoded?.data ?? "";
  expect(url).toMatch(/\/k\/[A-Za-z0-9_-]{43}$/);

  // A relative with no account opens it and the voice plays.
  const relative = await browser.newContext({ locale: lang === "ar" ? "ar" : "en-GB" });
  const listener = await relative.newPage();
  const opened = await listener.goto(url);
  expect(opened?.status()).toBe(200);
  await expect(listener.locator("h1")).toHaveText(first[lang === "ar" ? "titleB" : "title"]);
  const played = await listener.locator("audio").evaluate(async (audio: HTMLAudioElement) => {
    audio.muted = true;
    await audio.play();
    await new Promise((resolve) => setTimeout(resolve, 600));
    return audio.currentTime;
  });
  expect(played).toBeGreaterThan(0);
  const audioSrc = await listener.locator("audio").getAttribute("src");

  // The family turns that link off: the same address answers 404, in both languages, and the audio is refused.
  const speaker = k.book.family;
  const storyTitle = first[lang === "ar" ? "titleB" : "title"];
  const voiceName = fill(k.links.voice, { speaker, story: storyTitle });
  await page.getByRole("button", { name: fill(k.links.revoke, { name: voiceName }) }).click();
  await expect(page.getByRole("button", { name: fill(k.links.revoke, { name: voiceName }) })).toHaveCount(0);
  const again = await listener.goto(url);
  expect(again?.status()).toBe(404);
  // The server's own page (modules/keepsake/listening-page.ts), the same in every language.
  await expect(listener.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  await expect(listener.getByRole("heading", { name: "هذا الرابط لا يعمل" })).toBeVisible();
  const refused = await listener.request.get(new URL(audioSrc ?? "", url).toString());
  expect(refused.status()).toBe(404);
  await relative.close();
});

test("a keepsake with nothing recorded says what to record first", async ({ page, request, lang }) => {
  const person = await createUser(request);
  await signIn(page, person);
  await page.goto("/keepsake");
  await expect(page.getByRole("heading", { name: KEEPSAKE[lang].empty.title })).toBeVisible();
  await expect(page.getByText(KEEPSAKE[lang].empty.body)).toBeVisible();
});
