import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { type Bucket, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { enqueueMedia } from "./enqueue.ts";
import { loadBinaries } from "./ffmpeg.ts";
import { findJobs } from "./media.repository.ts";

/**
 * Issue 37: voices and videos are processed in lanes of their own (MEDIA_VIDEO_CONCURRENCY, MEDIA_VOICE_CONCURRENCY,
 * 1 and 1 here, as by default), so a family's voice is never queued behind a story video's transcode. The app's own
 * workers run the jobs.
 */

const run = promisify(execFile);
let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  dir = await mkdtemp(join(tmpdir(), "lanes-test-"));
  const { ffmpeg } = await loadBinaries();
  const make = (name: string, args: string[]) =>
    run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...args, "-threads", "1", join(dir, name)]);
  await Promise.all([
    // Long enough to transcode for many seconds on one thread (two rungs of 20 s at 25 frames a second).
    make("long.mp4", [
      "-f",
      "lavfi",
      "-i",
      "testsrc=duration=20:size=640x360:rate=25",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
    ]),
    make("voice.wav", ["-f", "lavfi", "-i", "sine=duration=1"]),
  ]);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const statusOf = async (bucket: Bucket, key: string) => (await findJobs(t.app.deps.db, [{ bucket, key }]))[0]?.status;

it("finishes a voice enqueued behind a running story video first", { timeout: 120_000 }, async () => {
  const video = `long-${crypto.randomUUID()}.mp4`;
  await t.app.deps.storage.put(STORY_MEDIA_BUCKET, video, Readable.from([await readFile(join(dir, "long.mp4"))]), "video/mp4");
  await enqueueMedia(t.app.deps, { bucket: STORY_MEDIA_BUCKET, key: video, kind: "video" });
  await expect.poll(() => statusOf(STORY_MEDIA_BUCKET, video), { timeout: 30_000, interval: 50 }).toBe("processing");

  const voice = `voice-${crypto.randomUUID()}.wav`;
  await t.app.deps.storage.put("audio", voice, Readable.from([await readFile(join(dir, "voice.wav"))]), "audio/wav");
  await enqueueMedia(t.app.deps, { bucket: "audio", key: voice, kind: "audio" });
  await expect.poll(() => statusOf("audio", voice), { timeout: 90_000, interval: 50 }).toBe("ready");
  expect(await statusOf(STORY_MEDIA_BUCKET, video)).toBe("processing");
  await expect.poll(() => statusOf(STORY_MEDIA_BUCKET, video), { timeout: 90_000, interval: 200 }).toBe("ready");
});
