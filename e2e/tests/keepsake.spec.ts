import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import jsQR from "jsqr";
import { getDocument, type PDFDocumentProxy, type PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import arKeepsake from "../../apps/web/src/locales/ar/keepsake.json" with { type: "json" };
import enKeepsake from "../../apps/web/src/locales/en/keepsake.json" with { type: "json" };
import { createUser, recordThought, STRINGS, signIn, storyByOrder, watchUpTo } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

const KEEPSAKE = { en: enKeepsake, ar: arKeepsake } as const;
const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? "");

type TextItem = Extract<Awaited<ReturnType<PDFPageProxy["getTextContent"]>>["items"][number], { str: string }>;
/** One line of a printed page as a reader reads it. */
interface Line {
  /** Baseline and horizontal extent, in PDF points (y grows upwards). */
  y: number;
  x0: number;
  x1: number;
  /** The line's items in reading order. */
  items: TextItem[];
  /** The glyphs' text in reading order, as extracted: Arabic in the presentation forms the shaper chose. */
  raw: string;
  /** `raw` compared as text: presentation forms folded (NFKC), marks and extra spaces left out. */
  text: string;
}

/**
 * Harakat (ُ ّ) are drawn above or below their letter and pdf.js gives them their own baseline, so a line's text
 * is compared without them, on both sides.
 */
const asText = (s: string) =>
  s
    .normalize("NFKC")
    .replace(/[\u064b-\u065f\u0670]/g, "")
    .replace(/\s+/g, " ")
    .trim();

/**
 * A page's text as lines in reading order. pdf.js gives an item per run (Arabic mostly one per glyph), each item's
 * own text in logical order with its direction; a line is read from its items' positions: right to left when it
 * holds right-to-left text. One pdf.js quirk is undone: the lam-alef maksura ligature (one glyph for لى, as in إلى)
 * comes out reversed, ىل, which Arabic never writes (ى only ends a word), so it can only be that glyph.
 */
async function linesOf(page: PDFPageProxy): Promise<Line[]> {
  const items = (await page.getTextContent()).items.filter((i): i is TextItem => "str" in i && i.str !== "");
  const rows: TextItem[][] = [];
  for (const item of [...items].sort((a, b) => b.transform[5] - a.transform[5])) {
    const row = rows.at(-1);
    if (row?.[0] && Math.abs(row[0].transform[5] - item.transform[5]) < 2) row.push(item);
    else rows.push([item]);
  }
  return rows.map((row) => {
    const rtl = row.some((i) => i.dir === "rtl");
    const ordered = [...row].sort((a, b) => (rtl ? -1 : 1) * (a.transform[4] - b.transform[4]));
    const raw = ordered.map((i) => i.str).join("");
    return {
      y: row[0]?.transform[5] ?? 0,
      x0: Math.min(...row.map((i) => i.transform[4])),
      x1: Math.max(...row.map((i) => i.transform[4] + i.width)),
      items: ordered,
      raw,
      text: asText(raw.replaceAll("ىل", "لى")),
    };
  });
}

/** pdf.js draws in Node on @napi-rs/canvas (its optional dependency), through the factory each document brings. */
interface NodeCanvas {
  width: number;
  height: number;
  toBuffer(type: "image/png"): Buffer;
}
interface NodeCanvasFactory {
  create(width: number, height: number): { canvas: NodeCanvas; context: CanvasRenderingContext2D };
}
async function render(doc: PDFDocumentProxy, page: PDFPageProxy, scale: number) {
  const viewport = page.getViewport({ scale });
  const { canvas, context } = (doc.canvasFactory as NodeCanvasFactory).create(
    Math.ceil(viewport.width),
    Math.ceil(viewport.height),
  );
  await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: context, viewport }).promise;
  return { canvas, context, viewport };
}

/**
 * The QR codes printed on a page, decoded from the page's own pixels, top first. jsQR reads one code per image and
 * none from a page holding two, so each code is cut out of the page where the book prints it: the square above its
 * caption ("Scan to listen"), at 3 px a point, several pixels a module.
 */
async function codesOf(doc: PDFDocumentProxy, page: PDFPageProxy, lines: Line[], caption: string) {
  const { context, viewport } = await render(doc, page, 3);
  const captions = lines.filter((l) => l.text === asText(caption));
  expect(captions.length, lines.map((l) => l.text).join(" | ")).toBeGreaterThan(0);
  return captions.map((line) => {
    const middle = (line.x0 + line.x1) / 2;
    // 110 pt above the caption and 120 pt across: the 28 mm code (80 pt) and its quiet zone.
    const [left, top] = viewport.convertToViewportPoint(middle - 60, line.y + 110) as [number, number];
    const [right, bottom] = viewport.convertToViewportPoint(middle + 60, line.y) as [number, number];
    const x = Math.max(0, Math.floor(left));
    const y = Math.max(0, Math.floor(top));
    const crop = context.getImageData(x, y, Math.ceil(right) - x, Math.ceil(bottom) - y);
    const code = jsQR(crop.data, crop.width, crop.height, { inversionAttempts: "dontInvert" });
    expect(code, `no QR code above the caption at y=${line.y}`).not.toBeNull();
    return code?.data ?? "";
  });
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
  await recordThought(request, person, first.id);

  // The menu offers the keepsake once there is a recording.
  await signIn(page, person);
  await page.goto("/");
  await page.getByRole("button", { name: STRINGS[lang].menu.open }).click();
  await page.getByRole("button", { name: STRINGS[lang].menu.keepsake }).click();
  await expect(page).toHaveURL(/\/keepsake$/);
  await expect(page.getByRole("heading", { name: k.page.heading })).toBeVisible();

  const title = lang === "ar" ? "حكايات جدتنا" : "Our grandmother's stories";
  const dedication = lang === "ar" ? "لأحفادنا الصغار" : "For our grandchildren";
  await page.getByLabel(k.form.title).fill(title);
  await page.getByLabel(k.form.dedication).fill(dedication);
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

  // The print: a cover, then a page for each story with chosen voices (the second story watched has none, so no page).
  const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  expect(doc.numPages).toBe(2);
  const pages = await Promise.all([1, 2].map((n) => doc.getPage(n)));
  const [cover = [], story1 = []] = await Promise.all(pages.map(linesOf));
  const texts = (lines: Line[]) => lines.map((l) => l.text);
  const digits = (n: number) => new Intl.NumberFormat(lang === "ar" ? "ar-u-nu-arab" : "en-GB").format(n);
  const second = await storyByOrder(request, person, 2);
  const titleOf = (story: typeof first) => (lang === "ar" ? story.titleB : story.title);

  // Each line read in the language's order is exactly the string the page printed.
  expect(texts(cover)).toEqual([title, dedication, k.book.scanBook].map(asText));
  // Story pages: the running title at the top, the page number in the language's digits at the foot.
  expect(texts(story1)).toEqual(
    [title, fill(k.book.story, { n: digits(1) }), titleOf(first), ...texts(story1).slice(3, -1), digits(2)].map(asText),
  );
  expect(texts(story1).filter((t) => t === asText(k.book.scan))).toHaveLength(2);
  expect(texts(story1).join("\n")).not.toContain(asText(titleOf(second)));

  // Direction and shaping, as the PDF holds them.
  const [titleLine] = cover;
  const byX = [...(titleLine?.items ?? [])].sort((a, b) => a.transform[4] - b.transform[4]);
  const storyLabel = story1[1];
  const middle = (pages[1]?.view[2] ?? 0) / 2;
  if (lang === "ar") {
    // Right to left: every letter is in a right-to-left run, the title begins at its rightmost glyph and ends at
    // its leftmost.
    const letters = byX.filter((i) => i.str.trim());
    expect(letters.map((i) => i.dir)).toEqual(letters.map(() => "rtl"));
    expect(letters.length).toBeGreaterThanOrEqual(2);
    expect(title.startsWith(asText(letters.at(-1)?.str ?? "-"))).toBe(true);
    expect(title.endsWith(asText(letters.at(0)?.str ?? "-"))).toBe(true);
    // The story's header starts at the right of the page.
    expect(storyLabel?.x0).toBeGreaterThan(middle);
    // Shaped: each letter is the contextual form the shaper chose, as the PDF's fonts map their glyphs: initial
    // hah, medial kaf, final alef, initial yeh, final alef, teh (alone after alef) | initial jeem, final dal,
    // initial teh, medial noon, final alef. Unshaped text would be the isolated letters.
    expect(titleLine?.raw).toBe("\ufea3\ufedc\ufe8e\ufef3\ufe8e\u062a \ufe9f\ufeaa\ufe97\ufee8\ufe8e");
  } else {
    expect(byX.every((i) => i.dir === "ltr")).toBe(true);
    expect(titleLine?.raw).toBe(title);
    expect(storyLabel?.x1).toBeLessThan(middle);
  }
  // The cover and the first story's page as pixels: the report's picture of the book (and, when asked, the docs').
  for (const [n, page] of pages.slice(0, 2).entries()) {
    const png = (await render(doc, page, 1.5)).canvas.toBuffer("image/png");
    await test.info().attach(`book-${lang}-${n + 1}.png`, { body: png, contentType: "image/png" });
    if (process.env.KEEPSAKE_BOOK_SHOTS) {
      const dir = resolve(import.meta.dirname, "../../docs/keepsake");
      mkdirSync(dir, { recursive: true });
      writeFileSync(resolve(dir, `book-${lang}-${n + 1}.png`), png);
    }
  }

  // The QR codes decoded from the PDF's pixels are the links the family shared: the whole book on the cover, each
  // voice beside it, in the book's order.
  const [coverPage, storyPage] = pages;
  if (!coverPage || !storyPage) throw new Error("the book has no story page");
  expect(await codesOf(doc, coverPage, cover, k.book.scanBook)).toEqual([
    await page.locator(".keepsake-cover .keepsake-qr").getAttribute("data-target"),
  ]);
  const voiceCodes = await codesOf(doc, storyPage, story1, k.book.scan);
  expect(voiceCodes).toEqual(await voiceQrs.evaluateAll((qrs) => qrs.map((qr) => qr.getAttribute("data-target"))));
  const url = voiceCodes[0] ?? "";
  expect(url).toMatch(/\/k\/[A-Za-z0-9_-]{43}$/);

  // A relative with no account opens it and the voice plays.
  const relative = await browser.newContext({ locale: lang === "ar" ? "ar" : "en-GB" });
  const listener = await relative.newPage();
  const opened = await listener.goto(url);
  expect(opened?.status()).toBe(200);
  await expect(listener.locator("h1")).toHaveText(titleOf(first));
  await expect(listener.getByText(k.book.family, { exact: true })).toBeVisible();
  const played = await listener.locator("audio").evaluate(async (audio: HTMLAudioElement) => {
    audio.muted = true;
    await audio.play();
    await new Promise((resolve) => setTimeout(resolve, 600));
    return audio.currentTime;
  });
  expect(played).toBeGreaterThan(0);
  const audioSrc = await listener.locator("audio").getAttribute("src");

  // The family scans their own book on the phone that has the app: its service worker leaves the link to the
  // server, which plays the voice (the app's shell would answer "Page not found"). In production the link's origin
  // is the app's (PUBLIC_URL); this server has none set, so the link is opened on the app's own origin.
  await page.evaluate(() => navigator.serviceWorker.ready);
  const ownPhone = await page.context().newPage();
  await ownPhone.goto(new URL(new URL(url).pathname, page.url()).toString());
  expect(await ownPhone.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await expect(ownPhone.locator("h1")).toHaveText(titleOf(first));
  await ownPhone.close();

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
