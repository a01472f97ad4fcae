import { resolve } from "node:path";
import type { AdminQuestion, Recording } from "@hikaya/contracts";
import arKeepsake from "../../apps/web/src/locales/ar/keepsake.json" with { type: "json" };
import enKeepsake from "../../apps/web/src/locales/en/keepsake.json" with { type: "json" };
import { adminToken, Console } from "../pages/admin.ts";
import { auth, COMMON, createUser, expectAccessible, recordThought, storyByOrder, watchUpTo } from "../pages/journey.ts";
import { userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

const KEEPSAKE = { en: enKeepsake, ar: arKeepsake } as const;
const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? "");
const WORDS = {
  en: "We walked to the sea every Friday, and your grandfather sang the whole way.",
  ar: "كنا نمشي إلى البحر كل جمعة، وكان جدك يغني طوال الطريق.",
};

/**
 * Every voice has its words (issue 39, WCAG 1.2.1): an operator types an English and an Arabic transcript for a
 * family member's answer; the family reads the one in their language under the player and in their printed book.
 */
test("an operator types an answer's words; the family reads theirs under the player and in the book", async ({
  page,
  request,
  browser,
  lang,
  shot,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const person = await createUser(request);
  const first = await storyByOrder(request, person, 1);
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const questionsOf = async () =>
    (await (await request.get(`/api/admin/stories/${first.id}/questions`, { headers })).json()) as AdminQuestion[];
  const answer = (await questionsOf())[0]?.answers[0];
  if (!answer) throw new Error("the demo's first story has no answer");
  const name = lang === "ar" ? answer.characterNameAr : answer.characterNameEn;

  try {
    // The operator types both languages' words into the answer's editor and saves them with the answer's version.
    await page.setViewportSize({ width: 1280, height: 860 });
    await c.signIn();
    await c.submitSignIn();
    await page.goto(`/admin/stories/${first.id}`);
    await expect(page.getByRole("heading", { level: 1, name: s.story.editTitle })).toBeVisible();
    const words = page.getByRole("form", { name: fill(s.transcript.title, { name }) }).first();
    const english = words.getByLabel(s.transcript.en, { exact: true });
    const arabic = words.getByLabel(s.transcript.ar, { exact: true });
    await expect(arabic).toHaveAttribute("dir", "rtl");
    await english.fill(WORDS.en);
    await arabic.fill(WORDS.ar);
    await words.getByRole("button", { name: fill(s.transcript.save, { name }) }).click();
    await expect(c.toast(s.common.saved)).toBeVisible();
    await words.scrollIntoViewIfNeeded();
    await shot("transcript-console");
    expect((await questionsOf())[0]?.answers[0]?.transcript).toEqual(WORDS);

    // Words over the limit are refused with a message in the operator's language, and nothing changes.
    await english.fill("a".repeat(5001));
    await words.getByRole("button", { name: fill(s.transcript.save, { name }) }).click();
    await expect(words.getByRole("alert")).toHaveText(s.transcript.tooLongEn);
    expect((await questionsOf())[0]?.answers[0]?.transcript).toEqual(WORDS);

    // The family, in their language: "Read" under the answer opens the words in that language only.
    const { context: family, page: app } = await userApp(browser, person, lang);
    await app.goto(`/questions/${first.id}/1`);
    const video = app.locator("video.player__video");
    await expect(video).toBeVisible({ timeout: 30_000 });
    await video.evaluate((v: HTMLVideoElement) => {
      v.pause();
      v.dispatchEvent(new Event("ended"));
    });
    const row = app.locator(".answer").filter({ hasText: name }).first();
    const audio = row.locator("audio");
    await expect(audio).toBeVisible();
    // Held on this answer: when it ends the flow moves on to the next question, whose answers have no words.
    await audio.evaluate((a: HTMLAudioElement) => a.pause());
    const read = row.getByText(COMMON[lang].voiceWords.read, { exact: true });
    await expect(row.getByText(WORDS[lang])).toBeHidden();
    await read.click();
    const shown = row.getByText(WORDS[lang]);
    await expect(shown).toBeVisible();
    await expect(shown).toHaveAttribute("lang", lang);
    await expect(row.getByText(WORDS[lang === "ar" ? "en" : "ar"])).toHaveCount(0);
    await app.screenshot({ path: resolve(import.meta.dirname, "..", "screenshots", lang, "transcript-player.png") });
    await expectAccessible(app);

    // The book: the person's own recording and this answer; the printed page has the words under the voice.
    await watchUpTo(request, person, 1);
    await recordThought(request, person, first.id);
    const [recording] = (await (await request.get("/api/recordings", { headers: auth(person) })).json()) as Recording[];
    const saved = await request.put("/api/keepsake", {
      headers: auth(person),
      data: {
        title: "",
        dedication: "",
        voices: [
          { kind: "answer", id: answer.id },
          { kind: "recording", id: recording?.id },
        ],
      },
    });
    expect(saved.status(), await saved.text()).toBe(200);
    await app.goto("/keepsake");
    await expect(app.getByRole("heading", { name: KEEPSAKE[lang].page.heading })).toBeVisible();
    // The storyteller adds the words of their own recording; the book prints them too.
    const own = lang === "ar" ? "هذه قصة بيتنا القديم." : "This is the story of our old house.";
    const ownBox = app.getByLabel(new RegExp(`^${KEEPSAKE[lang].words.label.split("{{")[0]}`));
    await ownBox.fill(own);
    await app.getByRole("button", { name: new RegExp(`^${KEEPSAKE[lang].words.save.split("{{")[0]}`) }).click();
    await expect(app.getByText(KEEPSAKE[lang].words.saved)).toBeVisible();
    await app.emulateMedia({ media: "print" });
    const book = app.getByRole("article", { name: KEEPSAKE[lang].book.label });
    const printed = book.locator(".keepsake-voice").filter({ hasText: name });
    await expect(printed.getByText(WORDS[lang])).toBeVisible();
    await expect(printed.getByText(WORDS[lang === "ar" ? "en" : "ar"])).toHaveCount(0);
    await expect(book.getByText(own)).toBeVisible();
    await family.close();
  } finally {
    // The demo's answer is shared by every spec: its words go as they came.
    const current = (await questionsOf())[0]?.answers[0];
    if (current)
      await request.put(`/api/admin/answers/${current.id}`, {
        headers,
        data: {
          characterId: current.characterId,
          audio: current.audio,
          transcript: { en: null, ar: null },
          version: current.version,
        },
      });
  }
});
