import { type AdminAnswer, type AdminQuestion, type AnswerItem, TRANSCRIPT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * The words of a family member's answer (issue 39, WCAG 1.2.1): operators type them per language on the answer's
 * versioned save, and families get both languages with each answer.
 */
let t: TestApp;
let admin: TestUser;
let facilitator: TestUser;
let family: TestUser;
let storyId = "";

const as = (user: TestUser | null, method: "GET" | "PUT", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: user?.headers ?? {}, ...(payload ? { payload } : {}) });

async function firstAnswer(): Promise<AdminAnswer> {
  const questions = (await as(admin, "GET", `/api/admin/stories/${storyId}/questions`)).json() as AdminQuestion[];
  const answer = questions.flatMap((q) => q.answers)[0];
  if (!answer) throw new Error("the demo story has no answer");
  return answer;
}

/** The answer as the family's token API hands it. */
async function familyAnswer(id: string): Promise<AnswerItem | undefined> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/story/questions/answers",
    headers: family.headers,
    payload: { story: storyId },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as AnswerItem[]).find((a) => a._id === id);
}

const save = (answer: AdminAnswer, transcript: unknown, by: TestUser | null = admin, version = answer.version) =>
  as(by, "PUT", `/api/admin/answers/${answer.id}`, {
    characterId: answer.characterId,
    audio: answer.audio,
    ...(transcript === undefined ? {} : { transcript }),
    version,
  });

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  facilitator = await createTestUser(t.app, { role: "facilitator" });
  family = await createTestUser(t.app);
  const first = await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").executeTakeFirstOrThrow();
  storyId = first.id;
});
afterAll(async () => t?.close());

describe("answer transcripts", () => {
  it("an answer starts with none, in the console and for families", async () => {
    const answer = await firstAnswer();
    expect(answer.transcript).toEqual({ en: null, ar: null });
    expect((await familyAnswer(answer.id))?.transcript).toEqual({ en: null, ar: null });
  });

  it("the operator's words in both languages reach the family with the answer; the recording stays", async () => {
    const answer = await firstAnswer();
    const res = await save(answer, { en: "  We walked to the sea.  ", ar: "مشينا إلى البحر." });
    expect(res.statusCode).toBe(200);
    const saved = (res.json() as AdminQuestion[]).flatMap((q) => q.answers).find((a) => a.id === answer.id);
    expect(saved).toMatchObject({
      transcript: { en: "We walked to the sea.", ar: "مشينا إلى البحر." },
      version: answer.version + 1,
    });
    expect(saved?.audio.split("?")[0]).toBe(answer.audio.split("?")[0]);
    expect((await familyAnswer(answer.id))?.transcript).toEqual({ en: "We walked to the sea.", ar: "مشينا إلى البحر." });
  });

  it("a save without a transcript keeps the stored one; empty text (or spaces) removes a language", async () => {
    const kept = await save(await firstAnswer(), undefined);
    expect(kept.statusCode).toBe(200);
    expect((await firstAnswer()).transcript).toEqual({ en: "We walked to the sea.", ar: "مشينا إلى البحر." });

    const cleared = await save(await firstAnswer(), { en: "", ar: "   " });
    expect(cleared.statusCode).toBe(200);
    expect((await firstAnswer()).transcript).toEqual({ en: null, ar: null });
    expect((await familyAnswer((await firstAnswer()).id))?.transcript).toEqual({ en: null, ar: null });

    const nulls = await save(await firstAnswer(), { en: "Only English", ar: null });
    expect(nulls.statusCode).toBe(200);
    expect((await firstAnswer()).transcript).toEqual({ en: "Only English", ar: null });
  });

  it("words over the limit are a 400 naming the field and the reason, and change nothing", async () => {
    const answer = await firstAnswer();
    const atLimit = await save(answer, { en: "a".repeat(TRANSCRIPT_MAX), ar: null });
    expect(atLimit.statusCode).toBe(200);
    const after = await firstAnswer();
    const res = await save(after, { en: null, ar: "ب".repeat(TRANSCRIPT_MAX + 1) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [{ path: "/transcript/ar", reason: "too_big" }] },
    });
    expect((await firstAnswer()).transcript).toEqual({ en: "a".repeat(TRANSCRIPT_MAX), ar: null });
    expect((await firstAnswer()).version).toBe(after.version);
  });

  it("a transcript must be both languages' text or null", async () => {
    const answer = await firstAnswer();
    for (const bad of [{ en: "x" }, { en: 5, ar: null }, "words"]) {
      const res = await save(answer, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("validation_failed");
    }
    // A NUL (which PostgreSQL cannot store) is refused at the edge or by the schema, never a 500.
    expect((await save(answer, { en: "a\u0000b", ar: null })).statusCode).toBe(400);
  });

  it("a stale save of the words is refused with what is stored", async () => {
    const answer = await firstAnswer();
    expect((await save(answer, { en: "First", ar: "الأول" })).statusCode).toBe(200);
    const stale = await save(answer, { en: "Second", ar: "الثاني" });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({
      reason: "stale_version",
      current: { id: answer.id, transcript: { en: "First", ar: "الأول" }, version: answer.version + 1 },
    });
  });

  it("only admins write the words: families and facilitators 403, visitors 401", async () => {
    const answer = await firstAnswer();
    const words = { en: "Not theirs", ar: null };
    expect((await save(answer, words, family)).statusCode).toBe(403);
    expect((await save(answer, words, facilitator)).statusCode).toBe(403);
    expect((await save(answer, words, null)).statusCode).toBe(401);
    expect((await firstAnswer()).transcript.en).toBe("First");
  });
});
