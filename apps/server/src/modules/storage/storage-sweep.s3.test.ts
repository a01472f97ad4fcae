import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { type Bucket, publicObjectPath, storyMediaPath } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestS3, type TestS3 } from "../../test/s3-server.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { sweepStorage } from "./storage-sweep.ts";

let s3: TestS3;
let t: TestApp;

beforeAll(async () => {
  s3 = await startTestS3();
  t = await createTestApp({ ...s3.env, STORAGE_SWEEP_INTERVAL_MINUTES: "0" });
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

const put = (bucket: Bucket, key: string) =>
  t.app.deps.storage.put(bucket, key, Readable.from([Buffer.from(key)]), "application/octet-stream");
async function keysOf(bucket: Bucket): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of t.app.deps.storage.list(bucket)) keys.push(o.key);
  return keys.sort();
}

describe("the storage sweep on S3", () => {
  it("lists each bucket's objects (nested keys, no other bucket's) and removes only what no row points to", async () => {
    const storyId = randomUUID();
    const video = `${randomUUID()}.mp4`;
    await put("story-media", video);
    await put("story-media", `${randomUUID()}.mp4`);
    await put("thumbnails", storyId);
    const now = new Date().toISOString();
    await t.app.deps.db
      .insertInto("stories")
      .values({
        id: storyId,
        position: 1,
        title_en: "S3",
        title_ar: "س",
        subtitle_en: "",
        subtitle_ar: "",
        video_url: storyMediaPath(video),
        thumbnail_path: `${publicObjectPath("thumbnails", storyId)}?v=1`,
        duration_seconds: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await put("recordings", "someone/left-over");

    expect(await keysOf("story-media")).toHaveLength(2);
    expect(await keysOf("recordings")).toEqual(["someone/left-over"]);
    expect(await keysOf("thumbnails")).toEqual([storyId]);

    expect((await sweepStorage(t.app.deps)).removedOrphans).toBe(0);
    const result = await sweepStorage(t.app.deps, { now: Date.now() + 2 * 24 * 3600_000 });
    expect(result.removedOrphans).toBe(2);
    expect(await keysOf("story-media")).toEqual([video]);
    expect(await keysOf("thumbnails")).toEqual([storyId]);
    expect(await keysOf("recordings")).toEqual([]);
  });
});
