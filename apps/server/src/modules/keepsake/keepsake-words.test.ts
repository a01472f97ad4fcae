import type { Keepsake, KeepsakeVoice } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { type KeepsakeFamily, seedFamily, shareBook, unzip } from "./keepsake.test-helpers.ts";

/**
 * The words under each voice of the book (issue 39, WCAG 1.2.1): an answer's transcript in the book's language
 * (else the other's), the storyteller's own words for their recording; on the listening page and in the ZIP's page.
 */
let t: TestApp;
let family: KeepsakeFamily;

beforeAll(async () => {
  t = await createTestApp();
  family = await seedFamily(t.app);
  await t.app.deps.db
    .updateTable("answers")
    .set({ transcript_en: "We planted it <together>.", transcript_ar: "زرعناها معًا." })
    .where("id", "=", family.answerId)
    .execute();
  const words = await t.app.inject({
    method: "PUT",
    url: `/api/recordings/${family.recordingId}/transcript`,
    headers: family.user.headers,
    payload: { transcript: "Grandfather's hands, full of soil.", version: 0 },
  });
  expect(words.statusCode).toBe(200);
  const saved = await t.app.inject({
    method: "PUT",
    url: "/api/keepsake",
    headers: family.user.headers,
    payload: {
      title: "Our tree",
      dedication: "",
      voices: [
        { kind: "answer", id: family.answerId },
        { kind: "recording", id: family.recordingId },
      ],
    },
  });
  expect(saved.statusCode).toBe(200);
});
afterAll(async () => t?.close());

async function voices(language: "en" | "ar"): Promise<Map<string, KeepsakeVoice>> {
  const res = await t.app.inject({ url: `/api/keepsake?lang=${language}`, headers: family.user.headers });
  expect(res.statusCode).toBe(200);
  return new Map((res.json() as Keepsake).stories.flatMap((s) => s.voices).map((v) => [v.id, v]));
}

describe("the words in the keepsake", () => {
  it("the book gets the answer's words in its language, and the storyteller's own as typed", async () => {
    const ar = await voices("ar");
    expect(ar.get(family.answerId)).toMatchObject({ words: { text: "زرعناها معًا.", language: "ar" }, wordsVersion: 0 });
    expect(ar.get(family.recordingId)).toMatchObject({
      words: { text: "Grandfather's hands, full of soil.", language: null },
      wordsVersion: 1,
    });
    expect((await voices("en")).get(family.answerId)?.words).toEqual({ text: "We planted it <together>.", language: "en" });
  });

  it("without words in the book's language the other language's are printed; with none at all, nothing", async () => {
    await t.app.deps.db.updateTable("answers").set({ transcript_ar: null }).where("id", "=", family.answerId).execute();
    expect((await voices("ar")).get(family.answerId)?.words).toEqual({ text: "We planted it <together>.", language: "en" });
    await t.app.deps.db.updateTable("answers").set({ transcript_en: null }).where("id", "=", family.answerId).execute();
    expect((await voices("ar")).get(family.answerId)?.words).toBeNull();
    await t.app.deps.db
      .updateTable("answers")
      .set({ transcript_en: "We planted it <together>.", transcript_ar: "زرعناها معًا." })
      .where("id", "=", family.answerId)
      .execute();
  });

  it("the listening page shows each voice's words in the link's language, escaped", async () => {
    const { book } = await shareBook(t.app, family, "ar");
    const page = await t.app.inject({ url: `/k/${book}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<summary>اقرأ</summary><p lang="ar" dir="rtl">زرعناها معًا.</p>');
    expect(page.body).toContain(`<p dir="auto">Grandfather&#39;s hands, full of soil.</p>`);
  });

  it("the download's index.html has the words under each file", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/keepsake/export?lang=en", headers: family.user.headers });
    expect(res.statusCode).toBe(200);
    const index = unzip(res.rawPayload).get("index.html")?.toString("utf8") ?? "";
    expect(index).toContain('<summary>Read</summary><p lang="en" dir="ltr">We planted it &lt;together&gt;.</p>');
    expect(index).toContain("Grandfather&#39;s hands, full of soil.");
  });
});
