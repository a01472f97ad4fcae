import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { multipart, wav } from "../recordings/test-fixtures.ts";
import { seedFamily, shareBook, unzip } from "./keepsake.test-helpers.ts";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("download everything", () => {
  it("asks who is asking", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/keepsake/export" })).statusCode).toBe(401);
  });

  it("streams a ZIP of the recordings, the answers kept in the book and an index.html in the person's language", async () => {
    const family = await seedFamily(t.app);
    // The family member's answer goes in the book beside their own recording; a relative asks and is answered.
    const saved = await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: {
        title: "بيتنا",
        dedication: "",
        voices: [
          { kind: "answer", id: family.answerId },
          { kind: "recording", id: family.recordingId },
        ],
      },
    });
    expect(saved.statusCode).toBe(200);
    const token = (await shareBook(t.app, family, "ar")).book;
    const asked = multipart([
      { name: "kind", value: "question" },
      { name: "name", value: "<i>Omar</i>" },
      { name: "text", value: "Where?" },
    ]);
    const question = await t.app.inject({
      method: "POST",
      url: `/k/${token}/messages`,
      headers: { "content-type": asked.contentType, accept: "application/json" },
      payload: asked.payload,
    });
    const answer = multipart([{ name: "audio", filename: "a.wav", type: "audio/wav", data: wav(1) }]);
    const answered = await t.app.inject({
      method: "POST",
      url: `/api/family-messages/${question.json<{ id: string }>().id}/answer`,
      headers: { ...family.user.headers, "content-type": answer.contentType },
      payload: answer.payload,
    });
    expect(answered.statusCode).toBe(200);

    const res = await t.app.inject({ method: "GET", url: "/api/keepsake/export?lang=ar", headers: family.user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/zip");
    expect(res.headers["content-disposition"]).toContain("attachment");
    // Sent as it is made: no length known in advance.
    expect(res.headers["content-length"]).toBeUndefined();
    const entries = unzip(res.rawPayload);
    expect([...entries.keys()]).toEqual(["index.html", "story-01/voice-01.wav", "story-01/voice-02.wav", "family/answer-01.wav"]);
    // The book's order: the family member's answer to the first question, then the recording about the story.
    const stored = await t.app.deps.db
      .selectFrom("recordings")
      .select("size")
      .where("id", "=", family.recordingId)
      .executeTakeFirstOrThrow();
    expect(entries.get("story-01/voice-02.wav")?.length).toBe(stored.size);
    expect(entries.get("family/answer-01.wav")?.subarray(0, 4).toString("latin1")).toBe("RIFF");
    const index = entries.get("index.html")?.toString("utf8") ?? "";
    expect(index).toContain('<html lang="ar" dir="rtl">');
    expect(index).toContain("<h1>بيتنا</h1>");
    expect(index).toContain(family.story.titleAr);
    expect(index).toContain("أسئلة من عائلتك");
    expect(index).toContain("&lt;i&gt;Omar&lt;/i&gt;");
    const links = [...index.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(["story-01/voice-01.wav", "story-01/voice-02.wav", "family/answer-01.wav"]);
  });

  it("a family with nothing recorded gets a ZIP with its index only", async () => {
    const family = await seedFamily(t.app);
    await t.app.deps.db.deleteFrom("recordings").where("user_id", "=", family.user.id).execute();
    const res = await t.app.inject({ method: "GET", url: "/api/keepsake/export", headers: family.user.headers });
    expect(res.statusCode).toBe(200);
    expect([...unzip(res.rawPayload).keys()]).toEqual(["index.html"]);
  });
});
