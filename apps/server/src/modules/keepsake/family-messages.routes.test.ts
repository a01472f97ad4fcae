import { errorBodySchema, type FamilyMessageList, type Keepsake } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";
import { deleteAccountWithFiles } from "../account/deletion.service.ts";
import { multipart, type Part, wav, webm } from "../recordings/test-fixtures.ts";
import { type KeepsakeFamily, seedFamily, shareBook } from "./keepsake.test-helpers.ts";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const shared = (family: KeepsakeFamily, language: "en" | "ar" = "en") => shareBook(t.app, family, language);

const post = (token: string, parts: Part[], accept = "application/json") => {
  const body = multipart(parts);
  return t.app.inject({
    method: "POST",
    url: `/k/${token}/messages`,
    headers: { "content-type": body.contentType, accept },
    payload: body.payload,
  });
};
const fields = (values: Record<string, string>): Part[] => Object.entries(values).map(([name, value]) => ({ name, value }));
const listOf = async (family: KeepsakeFamily) => {
  const res = await t.app.inject({ method: "GET", url: "/api/family-messages", headers: family.user.headers });
  expect(res.statusCode).toBe(200);
  return res.json<FamilyMessageList>();
};
/**
 * Waits for the background AAC copies of a family's voices (modules/media), so a deletion test sees every file it must
 * take; a copy written after the deletion is the storage sweep's to remove, not these tests'.
 */
const copiesMade = (userId: string) =>
  expect
    .poll(
      async () =>
        (
          await t.app.deps.db
            .withTables<{ media_jobs: { object_key: string; status: string } }>()
            .selectFrom("media_jobs")
            .select("status")
            .where("object_key", "like", `${userId}/family/%`)
            .execute()
        ).every((j) => j.status === "ready" || j.status === "failed"),
      { timeout: 30_000, interval: 100 },
    )
    .toBe(true);
const codeOf = (body: string) => errorBodySchema.parse(JSON.parse(body)).code;

describe("relatives reply and ask through a share link", () => {
  it("keeps a typed question with a number and a recorded reply under a voice, pending for the storyteller", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const question = await post(
      links.book,
      fields({ kind: "question", name: "Uncle Omar", text: "Where did grandma grow up?", phone: "+962 79 123 4567" }),
    );
    expect(question.statusCode, question.body).toBe(201);
    expect(question.json()).toEqual({ id: expect.any(String), status: "pending" });

    const page = await t.app.inject({ method: "GET", url: `/k/${links.voice}` });
    const slug = /name="voice" value="([^"]+)"/.exec(page.body)?.[1];
    expect(slug).toBe(`recording-${family.recordingId}`);
    const reply = await post(links.voice, [
      ...fields({ kind: "reply", name: "Lina", voice: slug as string }),
      { name: "audio", filename: "voice.wav", type: "audio/wav", data: wav(2) },
    ]);
    expect(reply.statusCode, reply.body).toBe(201);

    const list = await listOf(family);
    expect(list.unread).toBe(2);
    const [newest, oldest] = list.messages;
    expect(newest).toMatchObject({
      id: reply.json<{ id: string }>().id,
      kind: "reply",
      name: "Lina",
      text: null,
      status: "pending",
      voice: { kind: "recording", id: family.recordingId },
      wantsReply: false,
    });
    expect(oldest).toMatchObject({ kind: "question", text: "Where did grandma grow up?", audio: null, wantsReply: true });
    // The relative's voice plays through the signed link the list gives, and only through it.
    const audioUrl = newest?.audio ?? "";
    const audio = await t.app.inject({ method: "GET", url: audioUrl });
    expect(audio.statusCode).toBe(200);
    expect(audio.rawPayload.subarray(0, 4).toString("latin1")).toBe("RIFF");
    const unsigned = await t.app.inject({ method: "GET", url: audioUrl.split("?")[0] ?? "" });
    expect(unsigned.statusCode).toBe(403);
  });

  it("answers a form posted without script with a thank-you page in the book's language", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family, "ar");
    const res = await post(
      links.book,
      fields({ kind: "question", name: "سلمى", text: "ماذا كنتم تأكلون؟" }),
      "text/html,*/*;q=0.8",
    );
    expect(res.statusCode).toBe(201);
    expect(res.headers["content-type"]).toContain("text/html");
    expect(res.body).toContain('lang="ar"');
    expect(res.body).toContain("شكرًا لك");
    expect(res.body).toContain(`href="/k/${links.book}"`);
    const refused = await post(links.book, fields({ kind: "question", name: "", text: "؟" }), "text/html");
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain("اكتب اسمك");
    expect((await listOf(family)).messages).toHaveLength(1);
  });

  it("offers the forms and the recorder's script on the listening page, within the CSP", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const page = await t.app.inject({ method: "GET", url: `/k/${links.book}` });
    expect(page.body).toContain(`<form method="post" action="/k/${links.book}/messages" enctype="multipart/form-data"`);
    expect(page.body).toContain("Ask a question");
    expect(page.body).toContain("<summary>Reply</summary>");
    expect(page.body).toContain('<script src="/k/family-reply.js" defer></script>');
    expect(page.body).not.toMatch(/<script>/);
    const script = await t.app.inject({ method: "GET", url: "/k/family-reply.js" });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toContain("javascript");
    expect(script.body).toContain("MediaRecorder");
    const again = await t.app.inject({
      method: "GET",
      url: "/k/family-reply.js",
      headers: { "if-none-match": String(script.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it("stores HTML in a name as text and shows it escaped", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const name = `<img src=x onerror="alert(1)">`;
    expect((await post(links.book, fields({ kind: "question", name, text: "Hi" }))).statusCode).toBe(201);
    const [message] = (await listOf(family)).messages;
    expect(message?.name).toBe(name);
    const thanks = await post(links.book, fields({ kind: "question", name, text: "Hi", phone: "" }), "text/html");
    expect(thanks.body).not.toContain("<img");
  });

  it("refuses an empty name, no text nor voice, long text, a bad number or a foreign voice, keeping nothing", async () => {
    const family = await seedFamily(t.app);
    const other = await seedFamily(t.app);
    const links = await shared(family);
    const cases: [Record<string, string>, number, string][] = [
      [{ kind: "question", name: "", text: "Hi" }, 400, "validation_failed"],
      [{ kind: "question", name: "   ", text: "Hi" }, 400, "validation_failed"],
      [{ kind: "question", name: "x".repeat(81), text: "Hi" }, 400, "validation_failed"],
      [{ kind: "question", name: "Omar" }, 400, "validation_failed"],
      [{ kind: "question", name: "Omar", text: "y".repeat(2001) }, 400, "validation_failed"],
      [{ kind: "story", name: "Omar", text: "Hi" }, 400, "validation_failed"],
      [{ kind: "question", name: "Omar", text: "Hi", phone: "12" }, 400, "invalid_phone"],
      [{ kind: "reply", name: "Omar", text: "Hi", voice: `recording-${other.recordingId}` }, 400, "validation_failed"],
    ];
    for (const [values, status, code] of cases) {
      const res = await post(links.book, fields(values));
      expect(res.statusCode, JSON.stringify(values)).toBe(status);
      expect(codeOf(res.body)).toBe(code);
    }
    expect((await listOf(family)).messages).toEqual([]);
  });

  it("refuses a 20 MB voice with 413, and one over 5 minutes, and a file that is not audio, storing nothing", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const big = await post(links.book, [
      ...fields({ kind: "question", name: "Omar" }),
      {
        name: "audio",
        filename: "v.webm",
        type: "audio/webm",
        data: Buffer.concat([webm(["audio"]), Buffer.alloc(20 * 1024 * 1024)]),
      },
    ]);
    expect(big.statusCode).toBe(413);
    const long = await post(links.book, [
      ...fields({ kind: "question", name: "Omar" }),
      { name: "audio", filename: "v.wav", type: "audio/wav", data: wav(5 * 60 + 2) },
    ]);
    expect(long.statusCode).toBe(413);
    expect(codeOf(long.body)).toBe("payload_too_large");
    const text = await post(links.book, [
      ...fields({ kind: "question", name: "Omar" }),
      { name: "audio", filename: "v.wav", type: "audio/wav", data: Buffer.from("not audio at all ".repeat(400)) },
    ]);
    expect(text.statusCode).toBe(415);
    expect((await listOf(family)).messages).toEqual([]);
    const stored: string[] = [];
    for await (const o of t.app.deps.storage.list("recordings"))
      if (o.key.startsWith(`${family.user.id}/family/`)) stored.push(o.key);
    expect(stored).toEqual([]);
  });

  it("a revoked link refuses new messages with the same 404 as its page", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const revoked = await t.app.inject({
      method: "POST",
      url: `/api/keepsake/links/${links.bookLinkId}/revoke`,
      headers: family.user.headers,
    });
    expect(revoked.statusCode).toBe(200);
    const res = await post(links.book, fields({ kind: "question", name: "Omar", text: "Hi" }));
    expect(res.statusCode).toBe(404);
    const page = await post(links.book, fields({ kind: "question", name: "Omar", text: "Hi" }), "text/html");
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("This link does not work");
    expect(await post("x".repeat(43), fields({ kind: "question", name: "Omar", text: "Hi" })).then((r) => r.statusCode)).toBe(
      404,
    );
    expect((await listOf(family)).messages).toEqual([]);
  });
});

describe("the storyteller's side", () => {
  it("asks who is asking", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/family-messages" })).statusCode).toBe(401);
  });

  it("shows and hides a message, in the book or out of it; another family's message is not found", async () => {
    const family = await seedFamily(t.app);
    const other = await seedFamily(t.app);
    const links = await shared(family);
    const id = (await post(links.book, fields({ kind: "reply", name: "Omar", text: "Hi" }))).json<{ id: string }>().id;
    const inBook = async () =>
      (await t.app.inject({ method: "GET", url: "/api/keepsake", headers: family.user.headers })).json<Keepsake>().family;
    expect(await inBook()).toEqual({ questions: [], replies: [] });
    const set = (who: KeepsakeFamily, status: string) =>
      t.app.inject({ method: "POST", url: `/api/family-messages/${id}/status`, headers: who.user.headers, payload: { status } });
    const shown = await set(family, "shown");
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ id, status: "shown" });
    expect((await listOf(family)).unread).toBe(0);
    expect((await inBook()).replies).toEqual([expect.objectContaining({ id, name: "Omar", text: "Hi" })]);
    expect((await set(family, "hidden")).json()).toMatchObject({ status: "hidden" });
    expect(await inBook()).toEqual({ questions: [], replies: [] });
    expect((await set(family, "answered")).statusCode).toBe(400);
    const foreign = await set(other, "shown");
    expect(foreign.statusCode).toBe(404);
    expect((await listOf(family)).messages[0]?.status).toBe("hidden");
  });
});

const answer = (who: KeepsakeFamily, id: string, data = wav(2)) => {
  const body = multipart([{ name: "audio", filename: "a.wav", type: "audio/wav", data }]);
  return t.app.inject({
    method: "POST",
    url: `/api/family-messages/${id}/answer`,
    headers: { ...who.user.headers, "content-type": body.contentType },
    payload: body.payload,
  });
};

describe("answering a question", () => {
  it("keeps the answer, plays it on the link the question came through, and texts the relative in the book's language", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family, "ar");
    const name = `<b>Omar</b>`;
    const asked = await post(links.book, fields({ kind: "question", name, text: "Where is the tree?", phone: "+962791234567" }));
    const id = asked.json<{ id: string }>().id;
    const res = await answer(family, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      status: "answered",
      answerAudio: expect.stringContaining(`/api/family-messages/${id}/answer?`),
    });

    const page = await t.app.inject({ method: "GET", url: `/k/${links.book}` });
    expect(page.body).toContain("أسئلة من عائلتك");
    expect(page.body).toContain("Where is the tree?");
    expect(page.body).toContain("&lt;b&gt;Omar&lt;/b&gt;");
    expect(page.body).not.toContain(name);
    const played = await t.app.inject({ method: "GET", url: `/k/${links.book}/family-${id}/audio` });
    expect(played.statusCode).toBe(200);
    expect(played.rawPayload.subarray(0, 4).toString("latin1")).toBe("RIFF");
    // A voice link the question did not come through does not play it.
    expect((await t.app.inject({ method: "GET", url: `/k/${links.voice}/family-${id}/audio` })).statusCode).toBe(404);

    const sent = await t.app.deps.messages.list({ limit: 10, recipient: "+962791234567" });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toContain("أجابت العائلة عن سؤالك");
    expect(sent[0]?.body).toContain(`/k/${links.book}#answer-${id}`);
    // The book holds the answered question, for the family to print.
    const book = await t.app.inject({ method: "GET", url: "/api/keepsake", headers: family.user.headers });
    expect(book.json<Keepsake>().family.questions).toEqual([
      expect.objectContaining({
        id,
        name,
        text: "Where is the tree?",
        answerUrl: expect.any(String),
        answeredAt: expect.any(String),
      }),
    ]);
    // A second take replaces the first without texting again.
    expect((await answer(family, id)).statusCode).toBe(200);
    expect(await t.app.deps.messages.list({ limit: 10, recipient: "+962791234567" })).toHaveLength(1);
  });

  it("refuses to answer a reply (409), another family's question (404) or without a recording (400)", async () => {
    const family = await seedFamily(t.app);
    const other = await seedFamily(t.app);
    const links = await shared(family);
    const reply = (await post(links.book, fields({ kind: "reply", name: "Lina", text: "Lovely" }))).json<{ id: string }>().id;
    const question = (await post(links.book, fields({ kind: "question", name: "Lina", text: "Why?" }))).json<{ id: string }>().id;
    expect((await answer(family, reply)).statusCode).toBe(409);
    expect((await answer(other, question)).statusCode).toBe(404);
    const empty = multipart([{ name: "note", value: "no file" }]);
    const none = await t.app.inject({
      method: "POST",
      url: `/api/family-messages/${question}/answer`,
      headers: { ...family.user.headers, "content-type": empty.contentType },
      payload: empty.payload,
    });
    expect(none.statusCode).toBe(400);
    expect((await listOf(family)).messages.every((m) => m.status === "pending")).toBe(true);
  });
});

describe("operators remove abuse", () => {
  it("an admin lists a person's messages and removes one with its recording; others may not", async () => {
    const admin = await createTestUser(t.app, { admin: true });
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const abuse = await post(links.book, [
      ...fields({ kind: "reply", name: "Spam", text: "Buy now" }),
      { name: "audio", filename: "v.wav", type: "audio/wav", data: wav(1) },
    ]);
    const id = abuse.json<{ id: string }>().id;
    await copiesMade(family.user.id);
    const url = `/api/keepsake/people/${family.user.id}/family-messages`;
    expect((await t.app.inject({ method: "GET", url, headers: family.user.headers })).statusCode).toBe(403);
    const listed = await t.app.inject({ method: "GET", url, headers: admin.headers });
    expect(listed.json<FamilyMessageList>().messages.map((m) => [m.id, m.name])).toEqual([[id, "Spam"]]);
    expect((await t.app.inject({ method: "DELETE", url: `${url}/${id}`, headers: family.user.headers })).statusCode).toBe(403);
    const removed = await t.app.inject({ method: "DELETE", url: `${url}/${id}`, headers: admin.headers });
    expect(removed.statusCode).toBe(204);
    expect((await listOf(family)).messages).toEqual([]);
    const left: string[] = [];
    for await (const o of t.app.deps.storage.list("recordings"))
      if (o.key.startsWith(`${family.user.id}/family/`)) left.push(o.key);
    expect(left).toEqual([]);
    const audit = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .selectAll()
      .where("action", "=", "person.family_message.delete")
      .where("target_id", "=", family.user.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0])).not.toContain("Buy now");
    expect((await t.app.inject({ method: "DELETE", url: `${url}/${id}`, headers: admin.headers })).statusCode).toBe(404);
  });
});

describe("account deletion", () => {
  it("takes the relatives' messages and their files with the account", async () => {
    const family = await seedFamily(t.app);
    const links = await shared(family);
    const sent = await post(links.book, [
      ...fields({ kind: "question", name: "Omar" }),
      { name: "audio", filename: "v.wav", type: "audio/wav", data: wav(1) },
    ]);
    expect(sent.statusCode).toBe(201);
    const filesOf = async () => {
      const keys: string[] = [];
      for await (const o of t.app.deps.storage.list("recordings")) if (o.key.startsWith(`${family.user.id}/`)) keys.push(o.key);
      return keys;
    };
    expect((await filesOf()).some((k) => k.startsWith(`${family.user.id}/family/`))).toBe(true);
    await copiesMade(family.user.id);
    await deleteAccountWithFiles(t.app.deps, family.user.id, { ip: "127.0.0.1", userAgent: null }, { kind: "self" });
    const rows = await t.app.deps.db
      .withTables<{ family_messages: { user_id: string } }>()
      .selectFrom("family_messages")
      .selectAll()
      .where("user_id", "=", family.user.id)
      .execute();
    expect(rows).toEqual([]);
    expect(await filesOf()).toEqual([]);
  });
});
