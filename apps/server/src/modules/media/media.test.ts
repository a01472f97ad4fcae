import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { type MediaJobState, type MediaStream, STORY_MEDIA_BUCKET, storyMediaPath } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { voiceNoteFilesOf } from "../messages/messages.service.ts";
import { multipart as messageMultipart } from "../messages/messages.test-helpers.ts";
import { multipart as recordingMultipart } from "../recordings/test-fixtures.ts";
import { sweepStorage } from "../storage/storage-sweep.ts";
import { CookieJar } from "./cdn.test-helpers.ts";
import { enqueueMedia } from "./enqueue.ts";
import { loadBinaries } from "./ffmpeg.ts";
import { claimJob, findJobs, finishJob, insertJob } from "./media.repository.ts";
import { voiceCopyOf } from "./media.service.ts";
import { MediaWorker, mediaWorkerOf } from "./worker.ts";

/**
 * Issue 29: uploads become jobs in the database, any replica's worker runs each once, and a story's HLS files
 * follow its video's access rule. Inputs are made by ffmpeg itself (2 s at 640x360), so a job takes seconds.
 */

const run = promisify(execFile);
let t: TestApp;
let admin: TestUser;
let family: TestUser;
let dir: string;
const files: Record<"clip" | "sound" | "empty", Buffer> & { fake: Buffer } = {} as never;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  family = await createTestUser(t.app);
  dir = await mkdtemp(join(tmpdir(), "media-test-"));
  const { ffmpeg } = await loadBinaries();
  const make = (name: string, args: string[]) =>
    run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...args, "-threads", "1", join(dir, name)]);
  await Promise.all([
    make("clip.mp4", [
      ...["-f", "lavfi", "-i", "testsrc=duration=2:size=640x360:rate=25", "-f", "lavfi", "-i", "sine=duration=2"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"],
    ]),
    make("sound.mp4", ["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac"]),
    make("empty.mp4", ["-f", "lavfi", "-i", "testsrc=size=640x360:rate=25", "-frames:v", "0", "-c:v", "libx264"]),
  ]);
  files.clip = await readFile(join(dir, "clip.mp4"));
  files.sound = await readFile(join(dir, "sound.mp4"));
  files.empty = await readFile(join(dir, "empty.mp4"));
  // An MP4's first bytes (what the upload's sniffer checks) and nothing a decoder can use after them.
  files.fake = Buffer.concat([files.clip.subarray(0, 32), Buffer.alloc(20_000, 7)]);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function multipart(file: Buffer) {
  const boundary = `----media${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const payload = Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** Uploads a video from the console and makes a story of it; returns the story's stored video reference. */
async function storyWith(file: Buffer, title: string): Promise<{ id: string; ref: string }> {
  const body = multipart(file);
  const up = await t.app.inject({
    method: "POST",
    url: "/api/admin/uploads/story-video",
    headers: { ...admin.headers, ...body.headers },
    payload: body.payload,
  });
  expect(up.statusCode, up.body).toBe(200);
  const created = await t.app.inject({
    method: "POST",
    url: "/api/admin/stories",
    headers: admin.headers,
    payload: { titleEn: title, titleAr: title, videoUrl: up.json().path },
  });
  expect(created.statusCode, created.body).toBe(200);
  const row = await t.app.deps.db
    .selectFrom("stories")
    .select(["id", "video_url"])
    .where("title_en", "=", title)
    .executeTakeFirstOrThrow();
  return { id: row.id, ref: row.video_url };
}

async function states(paths: string[]): Promise<(MediaJobState | null)[]> {
  const res = await t.app.inject({ method: "POST", url: "/api/admin/media/status", headers: admin.headers, payload: { paths } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().states;
}

/** Waits (up to 30 s; a 2 s clip takes about one) until every path's job has finished, and returns their states. */
async function settled(paths: string[]): Promise<MediaJobState[]> {
  for (let i = 0; i < 300; i++) {
    const now = await states(paths);
    if (now.every((s) => s && (s.status === "ready" || s.status === "failed"))) return now as MediaJobState[];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`jobs did not finish: ${JSON.stringify(await states(paths))}`);
}

/** The family's browser: the stream's answer sets the cookie its files are fetched with (issue 41). */
const jar = new CookieJar();
const get = (url: string) => t.app.inject({ url, headers: jar.headersFor(url) });
const recordingBody = (data: Buffer, story: string) =>
  recordingMultipart([
    { name: "audio", filename: "voice.wav", type: "audio/wav", data },
    { name: "story", value: story },
  ]);
const familyStories = async () =>
  (await t.app.inject({ url: "/api/stories", headers: family.headers })).json() as { id: string; url?: string }[];
const streamOf = async (src: string) => {
  const res = await get(`/api/media/stream?src=${encodeURIComponent(src)}`);
  jar.take(res.headers["set-cookie"]);
  return res.json() as MediaStream;
};
const jobRow = async (ref: string) =>
  (await findJobs(t.app.deps.db, [{ bucket: STORY_MEDIA_BUCKET, key: ref.split("/").pop() as string }]))[0];

describe("an uploaded story video", { timeout: 60_000 }, () => {
  let first: { id: string; ref: string };
  let second: { id: string; ref: string };

  beforeAll(async () => {
    first = await storyWith(files.clip, "First");
    second = await storyWith(files.clip, "Second");
  }, 60_000);

  it("plays from the original while waiting, then has HLS renditions up to its own height, a poster and its duration", async () => {
    const [open] = await familyStories();
    expect(open?.id).toBe(first.id);
    expect((await get(open?.url as string)).statusCode).toBe(200);

    const [a, b] = await settled([first.ref, second.ref]);
    expect(a).toEqual({ status: "ready", progress: 100, failure: null });
    expect(b?.status).toBe("ready");
    expect((await jobRow(first.ref))?.attempts).toBe(1);

    const stream = await streamOf(open?.url as string);
    expect(stream.durationSeconds).toBeCloseTo(2, 0);
    const master = await get(stream.hls as string);
    expect(master.statusCode).toBe(200);
    expect(master.headers["content-type"]).toContain("application/vnd.apple.mpegurl");
    // 640x360 source: 180p to 360p, never scaled up to 480p or 720p, and the sound alone last (issue 38).
    expect(master.body.match(/^\w+\/index\.m3u8$/gm)).toEqual([
      "180p/index.m3u8",
      "240p/index.m3u8",
      "360p/index.m3u8",
      "audio/index.m3u8",
    ]);
    expect(master.body).toContain("RESOLUTION=320x180");
    expect(master.body).toContain("RESOLUTION=640x360");
    expect(master.body).toMatch(/BANDWIDTH=\d+,CODECS="mp4a\.40\.2"\naudio\/index\.m3u8/);

    const base = (stream.hls as string).replace(/master\.m3u8$/, "");
    const rendition = await get(`${base}360p/index.m3u8`);
    expect(rendition.statusCode).toBe(200);
    // A first segment of 1 s (the first frame waits for a whole one), and every rung cut on the same key frames.
    const durations = (playlist: string) => [...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((m) => Number(m[1]));
    const lowest = durations((await get(`${base}240p/index.m3u8`)).body);
    expect(lowest[0]).toBeCloseTo(1, 1);
    expect(lowest.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 0);
    expect(durations(rendition.body)).toEqual(lowest);
    const segments = rendition.body.split("\n").filter((line) => line.endsWith(".ts"));
    expect(segments.length).toBeGreaterThan(0);
    const segment = await get(`${base}360p/${segments[0]}`);
    expect(segment.statusCode).toBe(200);
    expect(segment.headers["content-type"]).toBe("video/mp2t");
    expect(segment.rawPayload.length).toBeGreaterThan(1000);
    const poster = await get(stream.poster as string);
    expect(poster.statusCode).toBe(200);
    expect(poster.headers["content-type"]).toBe("image/jpeg");

    // Issue 38: the sound alone under the same signature, and each mode's bytes as a player would fetch them.
    expect(stream.audioOnly).toBe(`${base}audio/index.m3u8`);
    const bytesOf = async (playlist: string) => {
      const body = (await get(playlist)).body;
      expect(body).toContain("#EXTINF");
      const folder = playlist.replace(/index\.m3u8$/, "");
      let total = 0;
      for (const name of body.split("\n").filter((line) => line.endsWith(".ts"))) {
        const res = await get(`${folder}${name}`);
        expect(res.statusCode).toBe(200);
        total += res.rawPayload.length;
      }
      return total;
    };
    expect(stream.sizes).toEqual({
      best: await bytesOf(`${base}360p/index.m3u8`),
      saveData: await bytesOf(`${base}180p/index.m3u8`),
      audioOnly: await bytesOf(stream.audioOnly as string),
    });
    expect(stream.sizes?.audioOnly).toBeLessThan(stream.sizes?.saveData as number);

    // The story's own answer carries its stream: the player need not ask about the link it was just given.
    const story = (await t.app.inject({ url: `/api/stories/${first.id}`, headers: family.headers })).json();
    expect(story.stream).toEqual(await streamOf(story.url));
    expect(story.stream.hls).toMatch(/master\.m3u8$/);
  });

  it("refuses a locked story's playlist and segments, as it refuses its video", async () => {
    const [, locked] = await familyStories();
    expect(locked?.id).toBe(second.id);
    expect(locked?.url).toBeUndefined();
    const [open] = await familyStories();
    const openStream = await streamOf(open?.url as string);
    const secondKey = second.ref.split("/").pop() as string;
    // The open story's cookie does not open the locked one's files.
    const borrowed = (openStream.hls as string).replace(/[^/]+\.media\//, `${secondKey}.media/`);
    expect((await get(borrowed)).statusCode).toBe(403);
    expect((await get(borrowed.replace("master.m3u8", "240p/seg_0000.ts"))).statusCode).toBe(403);
    // Nor does an unsigned reference ask for a stream: refused as its file is (issue 37).
    for (const ref of [second.ref, second.ref.replace("/authenticated/", "/sign/")]) {
      const res = await get(`/api/media/stream?src=${encodeURIComponent(ref)}`);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: "forbidden" });
    }
    expect((await get(borrowed.replace("master.m3u8", "audio/seg_0000.ts"))).statusCode).toBe(403);
  });
  it("keeps the processed files through the storage sweep while a story keeps their original", async () => {
    const key = first.ref.split("/").pop() as string;
    await sweepStorage(t.app.deps, { now: Date.now() + 1000, graceMs: 0 });
    expect(await t.app.deps.storage.stat(STORY_MEDIA_BUCKET, `${key}.media/hls/master.m3u8`)).not.toBeNull();
    expect(await t.app.deps.storage.stat(STORY_MEDIA_BUCKET, `${key}.media/poster.jpg`)).not.toBeNull();
  });
});

describe("a file that cannot be processed", { timeout: 60_000 }, () => {
  it("fails with its reason, and the worker goes on with the next job", async () => {
    const inputs = { fake: files.fake, sound: files.sound, empty: files.empty, good: files.clip };
    const refs: Record<string, string> = {};
    for (const [name, bytes] of Object.entries(inputs)) {
      const key = `bad-${name}-${crypto.randomUUID()}.mp4`;
      await t.app.deps.storage.put(STORY_MEDIA_BUCKET, key, Readable.from([bytes]), "video/mp4");
      await enqueueMedia(t.app.deps, { bucket: STORY_MEDIA_BUCKET, key, kind: "video" });
      refs[name] = storyMediaPath(key);
    }
    const [fake, sound, empty, good] = await settled([refs.fake, refs.sound, refs.empty, refs.good] as string[]);
    expect(fake).toEqual({ status: "failed", progress: 0, failure: "unreadable" });
    expect(sound?.failure).toBe("no_video_track");
    expect(empty?.failure).toBe("empty");
    expect(good?.status).toBe("ready");
    expect((await jobRow(refs.fake as string))?.error).toMatch(/Not a readable media file/);
  });

  it("makes a loudness-normalised AAC copy of a voice, and the original's address answers until then", async () => {
    const key = `voice-${crypto.randomUUID()}.m4a`;
    await t.app.deps.storage.put("audio", key, Readable.from([files.sound]), "audio/mp4");
    expect(await voiceCopyOf(t.app.deps, "audio", key)).toBeNull();
    await enqueueMedia(t.app.deps, { bucket: "audio", key, kind: "audio" });
    const [state] = await settled([`/storage/v1/object/public/audio/${key}`]);
    expect(state?.status).toBe("ready");
    const copy = await voiceCopyOf(t.app.deps, "audio", key);
    expect(copy).toBe(`${key}.media/voice.m4a`);
    const res = await get(`/storage/v1/object/public/audio/${copy}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("audio/mp4");
  });
});

describe("claims", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    // From here on the test drives its own workers, with a clock and limits of its own.
    await mediaWorkerOf(t.app)?.stop();
  });
  const silent = { info: () => {}, warn: () => {}, error: () => {} };

  async function waitingJob(): Promise<string> {
    const key = `claim-${crypto.randomUUID()}.mp4`;
    await t.app.deps.storage.put(STORY_MEDIA_BUCKET, key, Readable.from([files.clip]), "video/mp4");
    await insertJob(t.app.deps.db, { bucket: STORY_MEDIA_BUCKET, key, kind: "video" }, new Date().toISOString());
    return key;
  }
  const rowOf = async (key: string) => (await findJobs(t.app.deps.db, [{ bucket: STORY_MEDIA_BUCKET, key }]))[0];

  const claim = (worker: string, at: number, leaseMs: number) =>
    claimJob(t.app.deps.db, t.app.deps.database.dialect, {
      now: new Date(at).toISOString(),
      leaseUntil: new Date(at + leaseMs).toISOString(),
      worker,
    });

  it("gives a job to one of two workers claiming at once", async () => {
    const key = await waitingJob();
    const claims = await Promise.all(["w1", "w2"].map((worker) => claim(worker, Date.now(), 60_000)));
    expect(claims.filter((c) => c?.object_key === key)).toHaveLength(1);
    expect(claims.filter((c) => c === null)).toHaveLength(1);
    const winner = claims.find((c) => c !== null);
    await finishJob(t.app.deps.db, winner?.id as string, winner?.claimed_by as string, {
      status: "failed",
      errorCode: "failed",
      error: "settled by the test",
      now: new Date().toISOString(),
    });
  });

  it("takes a job again once the claim of a worker that died has lapsed, and runs it to the end", async () => {
    const key = await waitingJob();
    const start = Date.now();
    expect((await claim("died", start, 2 * 60_000))?.object_key).toBe(key);
    const early = new MediaWorker(t.app.deps, silent, { now: () => new Date(start + 30_000), leaseMs: 2 * 60_000 });
    expect(await early.runOne()).toBe(false);
    const late = new MediaWorker(t.app.deps, silent, { now: () => new Date(start + 3 * 60_000), leaseMs: 2 * 60_000 });
    expect(await late.runOne()).toBe(true);
    expect(await rowOf(key)).toMatchObject({ status: "ready", attempts: 2, claimed_by: null });
  });

  it("answers a recording's normalised AAC copy once its job is done, and the original until then", async () => {
    const { ffmpeg } = await loadBinaries();
    await run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", "-threads", "1", join(dir, "voice.wav")]);
    const [open] = await familyStories();
    const body = recordingBody(await readFile(join(dir, "voice.wav")), open?.id as string);
    const sent = await t.app.inject({
      method: "POST",
      url: "/api/story/audio/add",
      headers: { ...family.headers, "content-type": body.contentType },
      payload: body.payload,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const url = `/api/recordings/${sent.json().data.id}/audio`;
    expect((await t.app.inject({ url, headers: family.headers })).headers["content-type"]).toBe("audio/wav");
    expect(await new MediaWorker(t.app.deps, silent, { threads: 1 }).runOne()).toBe(true);
    const copy = await t.app.inject({ url, headers: family.headers });
    expect(copy.statusCode).toBe(200);
    expect(copy.headers["content-type"]).toBe("audio/mp4");
  });

  it("answers a voice message's AAC copy once its job is done, and until then the original, asked for again each time", async () => {
    const { ffmpeg } = await loadBinaries();
    await run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", "-threads", "1", join(dir, "note.wav")]);
    const bytes = await readFile(join(dir, "note.wav"));
    const form = await messageMultipart(
      { message: "audio", messageType: "audio" },
      { bytes, type: "audio/wav", filename: "n.wav" },
    );
    const sent = await t.app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...family.headers, ...form.headers },
      payload: form.payload,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const url = sent.json().data.message as string;
    const original = await t.app.inject({ url, headers: family.headers });
    expect(original.headers["content-type"]).toBe("audio/wav");
    // Not kept by the browser: the copy must replace it on the next play.
    expect(original.headers["cache-control"]).toBe("private, no-cache");
    expect(await new MediaWorker(t.app.deps, silent, { threads: 1 }).runOne()).toBe(true);
    const copy = await t.app.inject({ url, headers: family.headers });
    expect(copy.statusCode).toBe(200);
    expect(copy.headers["content-type"]).toBe("audio/mp4");
    expect(copy.headers["cache-control"]).toBe("private, max-age=3600");
    // Account deletion removes the copy with the note: it holds the same voice.
    const files = await voiceNoteFilesOf(t.app.deps.db, family.id);
    expect(files.map((f) => f.key.endsWith(".media/voice.m4a"))).toEqual([false, true]);
    for (const f of files) expect(await t.app.deps.storage.stat(f.bucket, f.key)).not.toBeNull();
  });

  it("stops a job that runs past its time limit, killing ffmpeg, and records why", async () => {
    const key = await waitingJob();
    // 50 ms: the probe and the transcode (processes of their own) cannot be done by then on any machine; 300 ms was
    // enough for a quiet one to finish the 2-second clip.
    const worker = new MediaWorker(t.app.deps, silent, { timeLimitMs: 50, threads: 1 });
    expect(await worker.runOne()).toBe(true);
    expect(await rowOf(key)).toMatchObject({ status: "failed", error_code: "timed_out", claimed_by: null });
  });

  it("fails a job every claimant of which died, instead of taking it again", async () => {
    const key = await waitingJob();
    const now = Date.now();
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await claim(`dead-${attempt}`, now + attempt * 10 * 60_000, 60_000))?.object_key).toBe(key);
    const worker = new MediaWorker(t.app.deps, silent, { now: () => new Date(now + 60 * 60_000) });
    expect(await worker.runOne()).toBe(false);
    expect(await rowOf(key)).toMatchObject({ status: "failed", error_code: "crashed", attempts: 3 });
  });
});
