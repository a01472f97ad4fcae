import { type AdminMedia, type Greeting, TRANSCRIPT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * The words of the Message Center greeting (issue 39, WCAG 1.2.1): operators type them per language on the
 * greeting's versioned document save; the family gets them with the greeting, on its own and on the chat's first page.
 */
let t: TestApp;
let admin: TestUser;
let facilitator: TestUser;
let family: TestUser;

const as = (user: TestUser | null, method: "GET" | "PUT" | "POST", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: user?.headers ?? {}, ...(payload ? { payload } : {}) });

type Document = AdminMedia["documents"][number];
const documentOf = async (key: string): Promise<Document> =>
  ((await as(admin, "GET", "/api/admin/media")).json() as AdminMedia).documents.find((d) => d.key === key) as Document;
const greetingDoc = () => documentOf("greetingAudio");

const save = (doc: Document, transcript: unknown, by: TestUser | null = admin, version = doc.version) =>
  as(by, "PUT", `/api/admin/documents/${doc.key}`, {
    path: doc.path,
    ...(transcript === undefined ? {} : { transcript }),
    version,
  });

/** The greeting as the family gets it: on its own, and with the chat's first page. */
async function familyGreeting() {
  const own = await as(family, "GET", "/api/messages/greeting");
  expect(own.statusCode).toBe(200);
  const page = await as(family, "POST", "/api/messages", {});
  expect(page.statusCode).toBe(200);
  const data = page.json().data as { greeting: string | null; greetingTranscript: Greeting["transcript"] | null };
  expect(data.greeting).toBe((own.json() as Greeting).audio);
  expect(data.greetingTranscript).toEqual((own.json() as Greeting).transcript);
  return own.json() as Greeting;
}

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  facilitator = await createTestUser(t.app, { role: "facilitator" });
  family = await createTestUser(t.app);
});
afterAll(async () => t?.close());

describe("greeting transcripts", () => {
  it("the greeting starts with none, in the console and for the family", async () => {
    const doc = await greetingDoc();
    expect(doc.path).not.toBeNull();
    expect(doc.transcript).toEqual({ en: null, ar: null });
    expect((await familyGreeting()).transcript).toEqual({ en: null, ar: null });
  });

  it("the operator's words in both languages reach the family with the greeting; the audio stays", async () => {
    const doc = await greetingDoc();
    const res = await save(doc, { en: "  Hello, we are here for you.  ", ar: "مرحبًا، نحن هنا من أجلك." });
    expect(res.statusCode).toBe(200);
    const saved = (res.json() as AdminMedia).documents.find((d) => d.key === "greetingAudio");
    expect(saved).toMatchObject({
      path: doc.path,
      transcript: { en: "Hello, we are here for you.", ar: "مرحبًا، نحن هنا من أجلك." },
      version: doc.version + 1,
    });
    const greeting = await familyGreeting();
    expect(greeting.audio).toBe(doc.path);
    expect(greeting.transcript).toEqual({ en: "Hello, we are here for you.", ar: "مرحبًا، نحن هنا من أجلك." });
  });

  it("a save without a transcript keeps the stored one; empty text removes a language", async () => {
    expect((await save(await greetingDoc(), undefined)).statusCode).toBe(200);
    expect((await greetingDoc()).transcript.en).toBe("Hello, we are here for you.");
    expect((await save(await greetingDoc(), { en: "", ar: "مرحبًا" })).statusCode).toBe(200);
    expect((await familyGreeting()).transcript).toEqual({ en: null, ar: "مرحبًا" });
  });

  it("words over the limit are a 400 naming the field, and change nothing", async () => {
    const doc = await greetingDoc();
    const res = await save(doc, { en: "a".repeat(TRANSCRIPT_MAX + 1), ar: null });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: "validation_failed",
      details: { issues: [{ path: "/transcript/en", reason: "too_big" }] },
    });
    expect(await greetingDoc()).toMatchObject({ transcript: { en: null, ar: "مرحبًا" }, version: doc.version });
  });

  it("a PDF has no words to type: refused, and nothing changes", async () => {
    const terms = await documentOf("termsAndCondition");
    const res = await save(terms, { en: "Terms", ar: null });
    expect(res.statusCode).toBe(400);
    expect(await documentOf("termsAndCondition")).toMatchObject({ transcript: { en: null, ar: null }, version: terms.version });
  });

  it("a stale save of the words is refused with what is stored", async () => {
    const doc = await greetingDoc();
    expect((await save(doc, { en: "First", ar: "الأول" })).statusCode).toBe(200);
    const stale = await save(doc, { en: "Second", ar: "الثاني" });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({
      reason: "stale_version",
      current: { key: "greetingAudio", transcript: { en: "First", ar: "الأول" } },
    });
  });

  it("only admins write the words: families and facilitators 403, visitors 401; visitors hear no greeting", async () => {
    const doc = await greetingDoc();
    const words = { en: "Not theirs", ar: null };
    expect((await save(doc, words, family)).statusCode).toBe(403);
    expect((await save(doc, words, facilitator)).statusCode).toBe(403);
    expect((await save(doc, words, null)).statusCode).toBe(401);
    expect((await as(null, "GET", "/api/messages/greeting")).statusCode).toBe(401);
    expect((await greetingDoc()).transcript.en).toBe("First");
  });
});
