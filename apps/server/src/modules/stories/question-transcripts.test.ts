import { type AdminQuestion, type QuestionItem, TRANSCRIPT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * The words of a story's question video (issue 39, WCAG 1.2.1): operators type them per language on the question's
 * versioned save, and families get both languages with each question.
 */
let t: TestApp;
let admin: TestUser;
let facilitator: TestUser;
let family: TestUser;
let storyId = "";

const as = (user: TestUser | null, method: "GET" | "PUT", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: user?.headers ?? {}, ...(payload ? { payload } : {}) });

async function firstQuestion(): Promise<AdminQuestion> {
  const question = ((await as(admin, "GET", `/api/admin/stories/${storyId}/questions`)).json() as AdminQuestion[])[0];
  if (!question) throw new Error("the demo story has no question");
  return question;
}

/** The question as the family's token API hands it. */
async function familyQuestion(id: string): Promise<QuestionItem | undefined> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/story/questions",
    headers: family.headers,
    payload: { story: storyId },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as QuestionItem[]).find((q) => q._id === id);
}

/** The stored file the console sends back: the listed link without its signature. */
const mediaOf = (question: AdminQuestion) => question.media.split("?")[0] as string;

const save = (question: AdminQuestion, transcript: unknown, by: TestUser | null = admin, version = question.version) =>
  as(by, "PUT", `/api/admin/questions/${question.id}`, {
    media: mediaOf(question),
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

describe("question transcripts", () => {
  it("a question starts with none, in the console and for families", async () => {
    const question = await firstQuestion();
    expect(question.transcript).toEqual({ en: null, ar: null });
    expect((await familyQuestion(question.id))?.transcript).toEqual({ en: null, ar: null });
  });

  it("the operator's words in both languages reach the family with the question; the video stays", async () => {
    const question = await firstQuestion();
    const res = await save(question, { en: "  What did you play as a child?  ", ar: "بماذا كنت تلعب في طفولتك؟" });
    expect(res.statusCode).toBe(200);
    const saved = (res.json() as AdminQuestion[]).find((q) => q.id === question.id) as AdminQuestion;
    expect(saved).toMatchObject({
      transcript: { en: "What did you play as a child?", ar: "بماذا كنت تلعب في طفولتك؟" },
      version: question.version + 1,
    });
    expect(mediaOf(saved)).toBe(mediaOf(question));
    expect((await familyQuestion(question.id))?.transcript).toEqual({
      en: "What did you play as a child?",
      ar: "بماذا كنت تلعب في طفولتك؟",
    });
  });

  it("a save without a transcript keeps the stored one; empty text removes a language", async () => {
    expect((await save(await firstQuestion(), undefined)).statusCode).toBe(200);
    expect((await firstQuestion()).transcript.en).toBe("What did you play as a child?");
    expect((await save(await firstQuestion(), { en: " ", ar: "بماذا" })).statusCode).toBe(200);
    expect((await familyQuestion((await firstQuestion()).id))?.transcript).toEqual({ en: null, ar: "بماذا" });
  });

  it("words over the limit are a 400 naming the field, and change nothing", async () => {
    const question = await firstQuestion();
    const res = await save(question, { en: "a".repeat(TRANSCRIPT_MAX + 1), ar: null });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [{ path: "/transcript/en", reason: "too_big" }] },
    });
    expect(await firstQuestion()).toMatchObject({ transcript: { en: null, ar: "بماذا" }, version: question.version });
  });

  it("a stale save of the words is refused with what is stored", async () => {
    const question = await firstQuestion();
    expect((await save(question, { en: "First", ar: "الأول" })).statusCode).toBe(200);
    const stale = await save(question, { en: "Second", ar: "الثاني" });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({ reason: "stale_version" });
    expect((await firstQuestion()).transcript).toEqual({ en: "First", ar: "الأول" });
  });

  it("only admins write the words: families and facilitators 403, visitors 401", async () => {
    const question = await firstQuestion();
    const words = { en: "Not theirs", ar: null };
    expect((await save(question, words, family)).statusCode).toBe(403);
    expect((await save(question, words, facilitator)).statusCode).toBe(403);
    expect((await save(question, words, null)).statusCode).toBe(401);
    expect((await firstQuestion()).transcript.en).toBe("First");
  });
});
