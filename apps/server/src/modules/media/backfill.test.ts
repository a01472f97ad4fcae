import { execFile } from "node:child_process";
import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createReplica, createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { enqueueUnprocessed } from "./backfill.ts";
import { loadBinaries } from "./ffmpeg.ts";
import { findJobs } from "./media.repository.ts";
import { mediaWorkerOf } from "./worker.ts";

/** `npm run media:process`: files stored without a job (the seeded demo, older uploads) get one, once. */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  // Nothing runs here: only which jobs exist is looked at.
  await mediaWorkerOf(t.app)?.stop();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => {
  await t?.close();
});

// A real clip (an upload is measured before it is kept), a second of 32×32; no job runs.
let clip: Promise<Buffer> | undefined;
const mp4 = () =>
  (clip ??= loadBinaries().then(
    ({ ffmpeg }) =>
      new Promise<Buffer>((resolve, reject) =>
        execFile(
          ffmpeg,
          [
            ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=black:s=32x32:r=5:d=1", "-threads", "1"],
            ...["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+frag_keyframe+empty_moov", "-f", "mp4", "pipe:1"],
          ],
          { encoding: "buffer" },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        ),
      ),
  ));

/** A story made of an uploaded video, as the console makes one; returns its stored video reference. */
async function storedStory(title: string): Promise<string> {
  const boundary = "----backfill";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    await mp4(),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const up = await t.app.inject({
    method: "POST",
    url: "/api/admin/uploads/story-video",
    headers: { ...admin.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
    payload,
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
    .select("video_url")
    .where("title_en", "=", title)
    .executeTakeFirstOrThrow();
  return row.video_url;
}

it("enqueues a job for a stored story video that has none, and nothing the second time", async () => {
  const videoUrl = await storedStory("Backfill");
  const source = { bucket: STORY_MEDIA_BUCKET, key: videoUrl.split("/").pop() as string };
  // As if it had been stored before processing existed.
  await sql`delete from media_jobs`.execute(t.app.deps.db);
  expect(await findJobs(t.app.deps.db, [source])).toEqual([]);

  const first = await enqueueUnprocessed(t.app.deps);
  expect(first.enqueued).toContainEqual({ ...source, kind: "video" });
  const [job] = await findJobs(t.app.deps.db, [source]);
  expect(job).toMatchObject({ kind: "video", status: "waiting" });

  const second = await enqueueUnprocessed(t.app.deps);
  expect(second.enqueued).toEqual([]);
  expect(second.existing).toBe(first.existing + first.enqueued.length);
});

it("enqueues the addresses it is given first before the rest (story 1 is processed first)", async () => {
  const one = await storedStory("Backfill one");
  const two = await storedStory("Backfill two");
  for (const order of [
    [one, two],
    [two, one],
  ]) {
    await sql`delete from media_jobs`.execute(t.app.deps.db);
    const { enqueued } = await enqueueUnprocessed(t.app.deps, { first: order });
    const keys = enqueued.map((e) => e.key);
    const [a, b] = order.map((path) => keys.indexOf(path.split("/").pop() as string));
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(b as number);
  }
});

it("runs on the start that seeds the demo when MEDIA_PROCESS_DEMO is on, story 1 first; not when off, nor later", async () => {
  const on = await createTestApp({ SEED_DEMO: "true", MEDIA_PROCESS_DEMO: "true" });
  const off = await createTestApp({ SEED_DEMO: "true" });
  try {
    // The jobs themselves are not run here (a whole demo's transcodes): only which exist, and in what order.
    await mediaWorkerOf(on.app)?.stop();
    await mediaWorkerOf(off.app)?.stop();
    const storyOne = await on.app.deps.db.selectFrom("stories").select("video_url").orderBy("position").executeTakeFirstOrThrow();
    const key = storyOne.video_url.split("?")[0]?.split("/").pop() as string;
    const jobsOf = async (app: TestApp["app"]) =>
      (await sql<{ object_key: string; created_at: string }>`select object_key, created_at from media_jobs`.execute(app.deps.db))
        .rows;
    await expect.poll(async () => (await jobsOf(on.app)).length, { timeout: 20_000 }).toBeGreaterThan(1);
    const jobs = await jobsOf(on.app);
    const oldest = [...jobs].sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
    expect(oldest?.object_key).toBe(key);
    expect(await jobsOf(off.app)).toEqual([]);

    // A later start finds the demo seeded and lists nothing: with the jobs gone, none come back.
    await sql`delete from media_jobs`.execute(on.app.deps.db);
    const restarted = await createReplica(on.config);
    try {
      await restarted.ready();
      await mediaWorkerOf(restarted)?.stop();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await jobsOf(restarted)).toEqual([]);
    } finally {
      await restarted.close();
    }
  } finally {
    await on.close();
    await off.close();
  }
}, 60_000);
