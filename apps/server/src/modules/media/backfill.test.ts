import { execFile } from "node:child_process";
import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
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

it("enqueues a job for a stored story video that has none, and nothing the second time", async () => {
  // A real clip (an upload is measured before it is kept), a second of 32×32; no job runs.
  const { ffmpeg } = await loadBinaries();
  const mp4 = await new Promise<Buffer>((resolve, reject) =>
    execFile(
      ffmpeg,
      [
        ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=black:s=32x32:r=5:d=1", "-threads", "1"],
        ...["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+frag_keyframe+empty_moov", "-f", "mp4", "pipe:1"],
      ],
      { encoding: "buffer" },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
  const boundary = "----backfill";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    mp4,
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
    payload: { titleEn: "Backfill", titleAr: "Backfill", videoUrl: up.json().path },
  });
  expect(created.statusCode, created.body).toBe(200);
  const row = await t.app.deps.db
    .selectFrom("stories")
    .select("video_url")
    .where("title_en", "=", "Backfill")
    .executeTakeFirstOrThrow();
  const source = { bucket: STORY_MEDIA_BUCKET, key: row.video_url.split("/").pop() as string };
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
