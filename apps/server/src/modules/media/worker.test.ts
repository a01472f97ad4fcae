import { mkdir, mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { claimJob, findJobs, finishJob, insertJob } from "./media.repository.ts";
import { removeAbandonedWork } from "./media.service.ts";
import { MediaWorker, MediaWorkers, mediaWorkerOf } from "./worker.ts";

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

describe("a job whose servers died under it three times", () => {
  it("is tried again after an hour with a fresh count, while a real failure stays final", async () => {
    const db = t.app.deps.db;
    const dialect = t.app.deps.database.dialect;
    const crashed = `crashed-${crypto.randomUUID()}.mp4`;
    const broken = `broken-${crypto.randomUUID()}.mp4`;
    const t0 = Date.now();
    const minutes = (n: number) => new Date(t0 + n * 60_000);
    await insertJob(db, { bucket: STORY_MEDIA_BUCKET, key: crashed, kind: "video" }, minutes(0).toISOString());
    for (const at of [0, 10, 20]) {
      const claim = { now: minutes(at).toISOString(), leaseUntil: minutes(at + 1).toISOString(), worker: `restarted-${at}` };
      expect((await claimJob(db, dialect, claim))?.object_key).toBe(crashed);
    }
    await insertJob(db, { bucket: STORY_MEDIA_BUCKET, key: broken, kind: "video" }, minutes(0).toISOString());
    const job = await claimJob(db, dialect, {
      now: minutes(21).toISOString(),
      leaseUntil: minutes(22).toISOString(),
      worker: "w",
    });
    expect(job?.object_key).toBe(broken);
    await finishJob(db, job?.id as string, "w", {
      status: "failed",
      errorCode: "unreadable",
      error: "not media",
      now: minutes(21).toISOString(),
    });
    const rowOf = async (key: string) => (await findJobs(db, [{ bucket: STORY_MEDIA_BUCKET, key }]))[0];
    const workerAt = (at: number) => new MediaWorker(t.app.deps, silent, { now: () => minutes(at) });

    expect(await workerAt(60).runOne()).toBe(false);
    expect(await rowOf(crashed)).toMatchObject({ status: "failed", error_code: "crashed", attempts: 3 });
    expect(await workerAt(60 + 59).runOne()).toBe(false);
    // An hour on, a worker takes it again as a first attempt (its file is gone here, so it ends as `missing`).
    expect(await workerAt(60 + 61).runOne()).toBe(true);
    expect(await rowOf(crashed)).toMatchObject({ status: "failed", error_code: "missing", attempts: 1 });
    expect(await workerAt(10 * 60).runOne()).toBe(false);
    expect(await rowOf(broken)).toMatchObject({ status: "failed", error_code: "unreadable", attempts: 1 });
  });
});

describe("the work folders of jobs whose server died", () => {
  it("are swept while the server runs, not only when it starts", async () => {
    const workers = new MediaWorkers(t.app.deps, silent, { videoConcurrency: 0, voiceConcurrency: 0, workSweepMs: 100 });
    workers.start();
    try {
      // Left after the first sweep, as by a job killed an hour and more ago.
      await new Promise((r) => setTimeout(r, 50));
      const dead = join(tmpdir(), `hikaya-media-killed-${crypto.randomUUID()}`);
      await mkdir(dead);
      const old = new Date(Date.now() - 2 * 60 * 60_000);
      await utimes(dead, old, old);
      await expect
        .poll(async () => (await readdir(tmpdir())).includes(dead.split("/").pop() as string), { timeout: 5_000, interval: 50 })
        .toBe(false);
    } finally {
      await workers.stop();
    }
  });

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
