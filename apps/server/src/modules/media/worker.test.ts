import { mkdir, mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { claimJob, findJobs, insertJob } from "./media.repository.ts";
import { removeAbandonedWork } from "./media.service.ts";
import { MediaWorker, mediaWorkerOf } from "./worker.ts";

/**
 * When a replica dies (or is restarted) its job's claim lapses; the worker that takes the job again should do so
 * once the lease runs out, not up to a poll interval later. The taken job's file is missing, so it ends at once
 * (`missing`) without ffmpeg: what is checked is who took it and when.
 */

let t: TestApp;
const silent = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  t = await createTestApp();
  // The app's own worker would take the job too.
  await mediaWorkerOf(t.app)?.stop();
});
afterAll(async () => {
  await t?.close();
});

describe("MediaWorker", () => {
  it("looks again when a running job's lease lapses, without waiting for its next poll", async () => {
    const key = `lapse-${crypto.randomUUID()}.mp4`;
    const at = Date.now();
    await insertJob(t.app.deps.db, { bucket: STORY_MEDIA_BUCKET, key, kind: "video" }, new Date(at).toISOString());
    const died = await claimJob(t.app.deps.db, t.app.deps.database.dialect, {
      now: new Date(at).toISOString(),
      leaseUntil: new Date(at + 1500).toISOString(),
      worker: "died",
    });
    expect(died?.object_key).toBe(key);

    const worker = new MediaWorker(t.app.deps, silent, { pollMs: 10 * 60_000 });
    worker.start();
    try {
      const row = async () => (await findJobs(t.app.deps.db, [{ bucket: STORY_MEDIA_BUCKET, key }]))[0];
      await expect.poll(async () => (await row())?.status, { timeout: 10_000, interval: 100 }).toBe("failed");
      expect(await row()).toMatchObject({ attempts: 2, error_code: "missing", claimed_by: null });
    } finally {
      await worker.stop();
    }
  });
});

describe("the work folders of jobs whose server died", () => {
  it("are removed once older than the time limit; a running job's folder stays", async () => {
    const dir = await mkdtemp(join(tmpdir(), "work-test-"));
    try {
      const hour = 60 * 60_000;
      const now = Date.now();
      for (const name of ["hikaya-media-dead", "hikaya-media-running", "someone-elses"]) await mkdir(join(dir, name));
      const old = new Date(now - 2 * hour);
      await utimes(join(dir, "hikaya-media-dead"), old, old);
      await utimes(join(dir, "someone-elses"), old, old);
      expect(await removeAbandonedWork(hour, now, dir)).toBe(1);
      expect((await readdir(dir)).sort()).toEqual(["hikaya-media-running", "someone-elses"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
