import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { Bucket } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { sweepStorage } from "./storage-sweep.ts";

let t: TestApp;
let admin: TestUser;
const DAY = 24 * 3600_000;
const later = () => ({ now: Date.now() + 2 * DAY });

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true", STORAGE_SWEEP_INTERVAL_MINUTES: "0" });
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(() => t.close());

const put = (bucket: Bucket, key: string, body = "bytes") =>
  t.app.deps.storage.put(bucket, key, Readable.from([Buffer.from(body)]), "application/octet-stream");
const exists = async (bucket: Bucket, key: string) => (await t.app.deps.storage.stat(bucket, key)) !== null;
async function keysOf(bucket: Bucket): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of t.app.deps.storage.list(bucket)) keys.push(o.key);
  return keys;
}
const keyOf = (path: string) => path.split("?")[0]?.split("/").slice(6).join("/") as string;

describe("the storage sweep", () => {
  it("never removes a file a row points to", async () => {
    const before: Record<string, string[]> = {};
    for (const bucket of [
      "thumbnails",
      "videos",
      "question-media",
      "audio",
      "images",
      "instructions",
      "documents",
      "story-media",
    ] as const)
      before[bucket] = (await keysOf(bucket)).sort();
    expect(before["story-media"]?.length).toBeGreaterThan(18);

    const result = await sweepStorage(t.app.deps, later());
    expect(result.removedOrphans).toBe(0);
    for (const [bucket, keys] of Object.entries(before)) expect((await keysOf(bucket as Bucket)).sort()).toEqual(keys);
  });

  it("keeps recordings and voice notes that rows point to, removes the ones no row points to", async () => {
    const user = await createTestUser(t.app);
    const recordingKey = `${user.id}/${randomUUID()}`;
    await put("recordings", recordingKey);
    const story = await t.app.deps.db.selectFrom("stories").select("id").executeTakeFirstOrThrow();
    await t.app.deps.db
      .insertInto("recordings")
      .values({
        id: randomUUID(),
        user_id: user.id,
        story_id: story.id,
        question_index: null,
        object_key: recordingKey,
        content_type: "audio/webm",
        size: 5,
        duration_seconds: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const voiceKey = `${user.id}/${randomUUID()}.webm`;
    await put("voice-notes", voiceKey);
    await t.app.deps.db
      .insertInto("messages")
      .values({
        user_id: user.id,
        sender_id: user.id,
        sender_role: "user",
        message_type: "audio",
        body: voiceKey,
        duration_seconds: 1,
        client_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    // A crash between the file and its row leaves these behind.
    await put("recordings", `${user.id}/${randomUUID()}`);
    await put("voice-notes", `${user.id}/${randomUUID()}.webm`);

    const result = await sweepStorage(t.app.deps, later());
    expect(result.removedOrphans).toBe(2);
    expect(await exists("recordings", recordingKey)).toBe(true);
    expect(await exists("voice-notes", voiceKey)).toBe(true);
    expect(await keysOf("recordings")).toEqual([recordingKey]);
    expect(await keysOf("voice-notes")).toEqual([voiceKey]);
  });

  it("removes the recordings of a person an admin deleted (the rows cascade, the files become orphans)", async () => {
    const user = await createTestUser(t.app);
    const key = `${user.id}/${randomUUID()}`;
    await put("recordings", key);
    const story = await t.app.deps.db.selectFrom("stories").select("id").executeTakeFirstOrThrow();
    await t.app.deps.db
      .insertInto("recordings")
      .values({
        id: randomUUID(),
        user_id: user.id,
        story_id: story.id,
        question_index: null,
        object_key: key,
        content_type: "audio/webm",
        size: 5,
        duration_seconds: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    expect((await sweepStorage(t.app.deps, later())).removedOrphans).toBe(0);
    // What the auth admin API's delete does to the rows (auth.repository deleteUser): the database cascades.
    await t.app.deps.db.deleteFrom("users").where("id", "=", user.id).execute();
    expect((await sweepStorage(t.app.deps, later())).removedOrphans).toBe(1);
    expect(await exists("recordings", key)).toBe(false);
  });

  it("leaves a file no row points to yet alone during the grace period (an upload in flight), then removes it", async () => {
    await put("videos", "in-flight.mp4");
    expect((await sweepStorage(t.app.deps)).removedOrphans).toBe(0);
    expect(await exists("videos", "in-flight.mp4")).toBe(true);
    expect((await sweepStorage(t.app.deps, later())).removedOrphans).toBe(1);
    expect(await exists("videos", "in-flight.mp4")).toBe(false);
  });

  it("removes temporary files of interrupted writes once they are a day old", async () => {
    if (t.config.storage.driver !== "local") return;
    const dir = join(t.config.storage.root, "audio");
    mkdirSync(dir, { recursive: true });
    const temp = `voice.m4a.${randomUUID()}.part`;
    writeFileSync(join(dir, temp), "half a file");
    writeFileSync(join(dir, `${temp}.type`), "audio/mp4");
    expect((await sweepStorage(t.app.deps)).removedTemp).toBe(0);
    expect(await keysOf("audio")).toContain(temp);
    expect((await sweepStorage(t.app.deps, later())).removedTemp).toBe(2);
    expect(await keysOf("audio")).not.toContain(temp);
    expect(await keysOf("audio")).not.toContain(`${temp}.type`);
  });
});

describe("files go with what they belong to", () => {
  it("deleting a story removes its video, thumbnail, question media and answers", async () => {
    const stories = (await t.app.inject({ url: "/api/admin/stories", headers: admin.headers })).json();
    const story = stories.at(-1);
    const questions = (await t.app.inject({ url: `/api/admin/stories/${story.id}/questions`, headers: admin.headers })).json();
    const files = [
      keyOf(story.videoUrl),
      ...questions.map((q: { media: string }) => keyOf(q.media)),
      ...questions.flatMap((q: { answers: { audio: string }[] }) => q.answers.map((a) => keyOf(a.audio))),
    ];
    expect(files.length).toBeGreaterThan(2);
    for (const key of files) expect(await exists("story-media", key)).toBe(true);
    expect(await exists("thumbnails", story.id)).toBe(true);

    const res = await t.app.inject({ method: "DELETE", url: `/api/admin/stories/${story.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    for (const key of files) expect(await exists("story-media", key)).toBe(false);
    expect(await exists("thumbnails", story.id)).toBe(false);
  });

  it("deleting a question keeps a file another question still uses", async () => {
    const story = (await t.app.inject({ url: "/api/admin/stories", headers: admin.headers })).json()[0];
    const questions = (await t.app.inject({ url: `/api/admin/stories/${story.id}/questions`, headers: admin.headers })).json();
    const shared = questions[0].media as string;
    const added = await t.app.inject({
      method: "POST",
      url: `/api/admin/stories/${story.id}/questions`,
      headers: admin.headers,
      payload: { media: shared },
    });
    expect(added.statusCode).toBe(200);
    const copy = added.json().at(-1);
    expect(keyOf(copy.media)).toBe(keyOf(shared));
    const removed = await t.app.inject({ method: "DELETE", url: `/api/admin/questions/${copy.id}`, headers: admin.headers });
    expect(removed.statusCode).toBe(200);
    expect(await exists("story-media", keyOf(shared))).toBe(true);
    expect((await t.app.inject({ url: shared })).statusCode).toBe(200);
  });

  it("replacing a story video, an answer, an instruction or a document removes the old file", async () => {
    const story = (await t.app.inject({ url: "/api/admin/stories", headers: admin.headers })).json()[1];
    const oldVideo = keyOf(story.videoUrl);
    await put("videos", "replacement.mp4");
    const updated = await t.app.inject({
      method: "PUT",
      url: `/api/admin/stories/${story.id}`,
      headers: admin.headers,
      payload: { titleEn: story.titleEn, titleAr: story.titleAr, videoUrl: "/storage/v1/object/public/videos/replacement.mp4" },
    });
    expect(updated.statusCode).toBe(200);
    expect(keyOf(updated.json().videoUrl)).not.toBe(oldVideo);
    expect(await exists("story-media", oldVideo)).toBe(false);
    expect(await exists("story-media", keyOf(updated.json().videoUrl))).toBe(true);

    const questions = (await t.app.inject({ url: `/api/admin/stories/${story.id}/questions`, headers: admin.headers })).json();
    const answer = questions[0].answers[0];
    await put("audio", "new-answer.m4a");
    const replaced = await t.app.inject({
      method: "PUT",
      url: `/api/admin/answers/${answer.id}`,
      headers: admin.headers,
      payload: { characterId: answer.characterId, audio: "/storage/v1/object/public/audio/new-answer.m4a" },
    });
    expect(replaced.statusCode).toBe(200);
    expect(await exists("story-media", keyOf(answer.audio))).toBe(false);

    const media = (await t.app.inject({ url: "/api/admin/media", headers: admin.headers })).json();
    const instruction = media.instructions.find((i: { location: string }) => i.location === "Reset Password").media;
    await put("instructions", "new-reset.mp4");
    const set = await t.app.inject({
      method: "PUT",
      url: "/api/admin/instructions/Reset%20Password",
      headers: admin.headers,
      payload: { media: "/storage/v1/object/public/instructions/new-reset.mp4" },
    });
    expect(set.statusCode).toBe(200);
    expect(await exists("instructions", keyOf(instruction))).toBe(false);
    expect(await exists("instructions", "new-reset.mp4")).toBe(true);

    const terms = media.documents.find((d: { key: string }) => d.key === "termsAndCondition").path;
    await put("documents", "new-terms.pdf");
    await t.app.inject({
      method: "PUT",
      url: "/api/admin/documents/termsAndCondition",
      headers: admin.headers,
      payload: { path: "/storage/v1/object/public/documents/new-terms.pdf" },
    });
    expect(await exists("documents", keyOf(terms))).toBe(false);
  });

  it("refuses story media that are not in storage with a clear 400", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories",
      headers: admin.headers,
      payload: { titleEn: "x", titleAr: "س", videoUrl: "/storage/v1/object/public/videos/never-uploaded.mp4" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "validation_failed" });
  });
});
