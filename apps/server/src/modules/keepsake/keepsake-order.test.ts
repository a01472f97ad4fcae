import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { Keepsake } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { wav } from "../recordings/test-fixtures.ts";
import { type KeepsakeFamily, seedFamily, shareBook } from "./keepsake.test-helpers.ts";

// The book reads like a book (issue 39, part 4): the order of its voices and the numbers it prints.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** The family also watches their second story and records about it, with the recorder's index `index`. */
async function recordInSecondStory(family: KeepsakeFamily, index: number) {
  const storyId = family.unwatchedStoryId;
  const story = await t.app.deps.db.selectFrom("stories").select("position").where("id", "=", storyId).executeTakeFirstOrThrow();
  await t.app.deps.db
    .insertInto("progress")
    .values({ user_id: family.user.id, story_id: storyId, story_position: story.position, watched_at: new Date().toISOString() })
    .execute();
  const id = randomUUID();
  const key = `${family.user.id}/${id}`;
  const bytes = wav(2);
  await t.app.deps.storage.put("recordings", key, Readable.from([bytes]), "audio/wav");
  await t.app.deps.db
    .insertInto("recordings")
    .values({
      id,
      user_id: family.user.id,
      story_id: storyId,
      question_index: index,
      object_key: key,
      content_type: "audio/wav",
      size: bytes.length,
      duration_seconds: 2,
      // Older than the first story's recording: the date must not put it first.
      created_at: "2020-01-01T00:00:00.000Z",
    })
    .execute();
  return id;
}

const keepsakeOf = async (family: KeepsakeFamily) =>
  (await t.app.inject({ method: "GET", url: "/api/keepsake", headers: family.user.headers })).json<Keepsake>();

describe("the book's order and numbers", () => {
  it("numbers no question for a recording: the recorder's index is the story's place, not a question's", async () => {
    const family = await seedFamily(t.app);
    await recordInSecondStory(family, 17);
    const k = await keepsakeOf(family);
    const own = k.stories.flatMap((s) => s.voices).filter((v) => v.kind === "recording");
    expect(own.map((v) => v.questionIndex)).toEqual([null, null]);
    // A family member's answer keeps its question's place in its story.
    expect(k.stories[0]?.voices.find((v) => v.kind === "answer")?.questionIndex).toBe(0);
  });

  it("plays a shared book's voices story by story, in the family's order within each", async () => {
    const family = await seedFamily(t.app);
    const later = await recordInSecondStory(family, 2);
    // The family put the second story's voice first, then the first story's answer and recording.
    const voices = [
      { kind: "recording", id: later },
      { kind: "answer", id: family.answerId },
      { kind: "recording", id: family.recordingId },
    ];
    const saved = await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: { title: "Ours", dedication: "", voices },
    });
    expect(saved.statusCode).toBe(200);
    const page = await t.app.inject({ method: "GET", url: `/k/${(await shareBook(t.app, family)).book}` });
    const order = [...page.body.matchAll(/\/(recording|answer)-([^/]+)\/audio/g)].map((m) => m[2]);
    expect(order).toEqual([family.answerId, family.recordingId, later]);
  });

  it("lists the voices left out in the book's order, the same on every read", async () => {
    const family = await seedFamily(t.app);
    const later = await recordInSecondStory(family, 2);
    await t.app.inject({
      method: "PUT",
      url: "/api/keepsake",
      headers: family.user.headers,
      payload: { title: "", dedication: "", voices: [] },
    });
    const ids = (k: Keepsake) => k.stories.flatMap((s) => s.voices.map((v) => v.id));
    const first = ids(await keepsakeOf(family));
    // Story by story; in a story the questions' answers, then the recording about the whole story.
    expect(first).toEqual([family.answerId, family.recordingId, later]);
    expect(ids(await keepsakeOf(family))).toEqual(first);
  });

  it("separates a voice's date and length with the Arabic comma in Arabic: a middle dot reads as the digit zero", async () => {
    const family = await seedFamily(t.app);
    const page = await t.app.inject({ method: "GET", url: `/k/${(await shareBook(t.app, family, "ar")).voice}` });
    expect(page.body).toMatch(/[٠-٩]{4}، المدة ٠:٠٣/);
    expect(page.body).not.toContain("·");
  });
});
