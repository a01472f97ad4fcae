import { type MediaFailure, type MediaJobStatus, STORY_MEDIA_BUCKET, storyMediaPath } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { enqueueMedia } from "../media/enqueue.ts";
import { mediaWorkerOf } from "../media/worker.ts";

/**
 * Publishing guards on a story's video: one whose processing failed (either language) is refused with
 * `video_failed` and its reason, and stays a draft; one still processing is published (its original plays).
 */
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  // The jobs below name files that do not exist: the app's worker would fail them as "missing" under the test.
  await mediaWorkerOf(t.app)?.stop();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

const publish = (id: string) =>
  t.app.inject({
    method: "PUT",
    url: `/api/admin/stories/${id}/published`,
    headers: admin.headers,
    payload: { published: true },
  });

/** A draft whose English (or Arabic) video is a stored file with a job in `status`. */
async function draftWithVideo(status: MediaJobStatus, failure: MediaFailure | null, lang: "en" | "ar" = "en") {
  const created = await t.app.inject({
    method: "POST",
    url: "/api/admin/stories",
    headers: admin.headers,
    payload: { titleEn: "Guarded", titleAr: "محمية", videoUrl: "https://www.youtube.com/watch?v=hikaya", published: false },
  });
  expect(created.statusCode).toBe(200);
  const id = created.json().id as string;
  const key = `guard-${crypto.randomUUID()}.mp4`;
  await t.app.deps.db
    .updateTable("stories")
    .set(lang === "en" ? { video_url: storyMediaPath(key) } : { video_url_ar: storyMediaPath(key) })
    .where("id", "=", id)
    .execute();
  await enqueueMedia(t.app.deps, { bucket: STORY_MEDIA_BUCKET, key, kind: "video" });
  // The state a worker would have written (media's repository is its own; the table is read as account tests do).
  await t.app.deps.db
    .withTables<{
      media_jobs: { object_key: string; status: MediaJobStatus; error_code: MediaFailure | null; progress: number };
    }>()
    .updateTable("media_jobs")
    .set({ status, error_code: failure, progress: status === "processing" ? 40 : 0 })
    .where("object_key", "=", key)
    .execute();
  return id;
}

const statusOf = async (id: string) =>
  (await t.app.inject({ method: "GET", url: `/api/admin/stories/${id}`, headers: admin.headers })).json().published;

describe("publishing a story with a processed video", () => {
  it("refuses a story whose video failed processing, with the reason, and leaves it a draft", async () => {
    const id = await draftWithVideo("failed", "no_video_track");
    const refused = await publish(id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "video_failed", details: { video: "en", failure: "no_video_track" } });
    expect(await statusOf(id)).toBe(false);
  });

  it("refuses one whose Arabic video failed, through the spec's update too", async () => {
    const id = await draftWithVideo("failed", "unreadable", "ar");
    expect((await publish(id)).json()).toMatchObject({ code: "video_failed", details: { video: "ar", failure: "unreadable" } });
    const saved = await t.app.inject({
      method: "PUT",
      url: `/api/stories?id=${id}`,
      headers: admin.headers,
      payload: { published: true },
    });
    expect(saved.json()).toMatchObject({ code: "video_failed" });
    expect(await statusOf(id)).toBe(false);
  });

  it("publishes a story whose video is still processing or waiting: the original plays meanwhile", async () => {
    for (const status of ["processing", "waiting", "ready"] as const) {
      const id = await draftWithVideo(status, null);
      const answer = await publish(id);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({ published: true });
    }
  });
});
