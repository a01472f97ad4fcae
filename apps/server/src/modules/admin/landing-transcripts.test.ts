import { type AdminLandingAnswer, type LandingAnswer, TRANSCRIPT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * The words of the voices on the characters screen (issue 39, WCAG 1.2.1): operators type them per language on the
 * landing answer's versioned save, and everyone the screen plays to gets both languages with each answer.
 */
let t: TestApp;
let admin: TestUser;
let facilitator: TestUser;
let family: TestUser;

const as = (user: TestUser | null, method: "GET" | "PUT", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: user?.headers ?? {}, ...(payload ? { payload } : {}) });

async function firstAnswer(): Promise<AdminLandingAnswer> {
  const answer = ((await as(admin, "GET", "/api/admin/landing-answers")).json() as AdminLandingAnswer[])[0];
  if (!answer) throw new Error("the demo has no landing answer");
  return answer;
}

/** The answer as the characters screen gets it (a public list). */
async function screenAnswer(id: string): Promise<LandingAnswer | undefined> {
  const res = await as(null, "GET", "/api/landing/answers");
  expect(res.statusCode).toBe(200);
  return (res.json() as LandingAnswer[]).find((a) => a._id === id);
}

const save = (answer: AdminLandingAnswer, transcript: unknown, by: TestUser | null = admin, version = answer.version) =>
  as(by, "PUT", `/api/admin/landing-answers/${answer.id}`, {
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
});
afterAll(async () => t?.close());

describe("landing answer transcripts", () => {
  it("an answer starts with none, in the console and on the characters screen", async () => {
    const answer = await firstAnswer();
    expect(answer.transcript).toEqual({ en: null, ar: null });
    expect((await screenAnswer(answer.id))?.transcript).toEqual({ en: null, ar: null });
  });

  it("the operator's words in both languages reach the screen with the answer; the recording stays", async () => {
    const answer = await firstAnswer();
    const res = await save(answer, { en: "  Welcome, dear.  ", ar: "أهلًا يا عزيزي." });
    expect(res.statusCode).toBe(200);
    const saved = (res.json() as AdminLandingAnswer[]).find((a) => a.id === answer.id);
    expect(saved).toMatchObject({
      transcript: { en: "Welcome, dear.", ar: "أهلًا يا عزيزي." },
      audio: answer.audio,
      version: answer.version + 1,
    });
    expect((await screenAnswer(answer.id))?.transcript).toEqual({ en: "Welcome, dear.", ar: "أهلًا يا عزيزي." });
  });

  it("a save without a transcript keeps the stored one; empty text removes a language", async () => {
    expect((await save(await firstAnswer(), undefined)).statusCode).toBe(200);
    expect((await firstAnswer()).transcript).toEqual({ en: "Welcome, dear.", ar: "أهلًا يا عزيزي." });
    expect((await save(await firstAnswer(), { en: "", ar: "  " })).statusCode).toBe(200);
    expect((await firstAnswer()).transcript).toEqual({ en: null, ar: null });
  });

  it("words over the limit are a 400 naming the field, and change nothing", async () => {
    const answer = await firstAnswer();
    expect((await save(answer, { en: "a".repeat(TRANSCRIPT_MAX), ar: null })).statusCode).toBe(200);
    const after = await firstAnswer();
    const res = await save(after, { en: null, ar: "ب".repeat(TRANSCRIPT_MAX + 1) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [{ path: "/transcript/ar", reason: "too_big" }] },
    });
    expect(await firstAnswer()).toMatchObject({
      transcript: { en: "a".repeat(TRANSCRIPT_MAX), ar: null },
      version: after.version,
    });
  });

  it("a stale save of the words is refused with what is stored", async () => {
    const answer = await firstAnswer();
    expect((await save(answer, { en: "First", ar: "الأول" })).statusCode).toBe(200);
    const stale = await save(answer, { en: "Second", ar: "الثاني" });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({
      reason: "stale_version",
      current: { id: answer.id, transcript: { en: "First", ar: "الأول" } },
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
