import { type ChildProcess, execFile } from "node:child_process";
import { accessSync, chmodSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";
import type { APIRequestContext, Browser } from "@playwright/test";
import pg from "pg";
import { startTestS3 } from "../../apps/server/src/test/s3-server.ts";
import { adminToken, Console } from "../pages/admin.ts";
import { LAPTOP, signUp } from "../support/console-setup.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";
import { startServer } from "../support/global-setup.ts";

// Issue 29, "Done when": a media job killed mid-way (kill -9 of its server) finishes after a restart, and on two
// replicas over PostgreSQL and S3 (s3rver) each job runs once. Each test starts servers of its own (the built bundle,
// as operators run it) with LOG_LEVEL=info, and reads their logs' "media job started" lines: one per claim, with the
// job, the worker and the attempt (apps/server/src/modules/media/worker.ts). The console follows the job in the
// operator's language throughout.

const run = promisify(execFile);
let clips: string;
const CLIP = { long: "long.mp4", short: ["a.mp4", "b.mp4", "c.mp4", "d.mp4"] } as const;

// ffmpeg as the server finds it (modules/media/ffmpeg.ts): the package's binary, made executable if installed
// without its scripts.
function ffmpegBinary(): string {
  const path = ffmpegInstaller.path;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, 0o755);
  }
  return path;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  clips = mkdtempSync(join(tmpdir(), "hikaya-e2e-clips-"));
  const ffmpeg = ffmpegBinary();
  const make = (name: string, size: string, seconds: number, tone: number) =>
    run(ffmpeg, [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", `testsrc=size=${size}:duration=${seconds}:rate=25`],
      ...["-f", "lavfi", "-i", `sine=duration=${seconds}:frequency=${tone}`],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", join(clips, name)],
    ]);
  // 6 s of 1080p: four renditions (240p-720p) take the server several seconds on one core, time enough to kill it
  // mid-way. The short ones are small: they only need to be distinct jobs.
  await make(CLIP.long, "1920x1080", 6, 440);
  await Promise.all(CLIP.short.map((name, i) => make(name, "640x360", 2, 300 + 100 * i)));
});

test.afterAll(() => {
  if (clips) rmSync(clips, { recursive: true, force: true });
});

interface LogLine {
  msg?: string;
  job?: string;
  worker?: string;
  attempt?: number;
}

/** A server's pino lines about media jobs, from what it wrote. */
function mediaLines(output: string, msg: "media job started" | "media job ready"): LogLine[] {
  return output
    .split("\n")
    .filter((line) => line.includes(`"${msg}"`))
    .map((line) => JSON.parse(line) as LogLine);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Asks `base` for the HLS of a video link, then, with the cookie that answer set (the request context keeps it), its
 * master playlist, a rendition's playlist and a segment.
 */
async function playStream(request: APIRequestContext, base: string, src: string): Promise<void> {
  const stream = await request.get(`${base}/api/media/stream?src=${encodeURIComponent(src)}`);
  expect(stream.status()).toBe(200);
  const { hls } = (await stream.json()) as { hls: string | null };
  expect(hls, `no stream for ${src}`).toMatch(/\/storage\/v1\/object\/cookie\/.+\.m3u8$/);
  const master = new URL(hls as string, base);
  const fetchText = async (url: URL) => {
    const res = await request.get(url.href);
    expect(res.status(), url.href).toBe(200);
    return res.text();
  };
  const firstEntry = (playlist: string) => playlist.split("\n").find((line) => line.trim() && !line.startsWith("#")) as string;
  const masterText = await fetchText(master);
  expect(masterText.startsWith("#EXTM3U")).toBe(true);
  expect(masterText).toContain("#EXT-X-STREAM-INF");
  const rendition = new URL(firstEntry(masterText), master);
  const renditionText = await fetchText(rendition);
  const segment = await request.get(new URL(firstEntry(renditionText), rendition).href);
  expect(segment.status()).toBe(200);
  expect(segment.headers()["content-type"]).toBe("video/mp2t");
  expect((await segment.body()).length).toBeGreaterThan(1000);
}

/** A job's state as the console's status API gives it. */
async function jobState(api: APIRequestContext, token: string, src: string) {
  const res = await api.post("/api/admin/media/status", { headers: bearer(token), data: { paths: [src] } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { states: ({ status: string; progress: number } | null)[] }).states[0] ?? null;
}

/** A console of its own on `base`, signed in as the e2e operator. */
async function consoleOn(browser: Browser, base: string, lang: Lang) {
  const context = await browser.newContext({ baseURL: base, locale: lang === "ar" ? "ar" : "en-US", viewport: LAPTOP });
  await context.addInitScript((l: Lang) => localStorage.setItem("i18nextLng", l), lang);
  const c = new Console(await context.newPage(), lang);
  await c.signIn();
  await c.submitSignIn();
  return { context, c };
}

/** The console's line about a story's video job, on its editor. */
const jobStatus = (c: Console) => c.page.getByRole("status").filter({ hasText: c.s.mediaJob.label });

/** The processes a process started (the server's running ffmpeg), from Linux's /proc. */
function childrenOf(child: ChildProcess): number[] {
  const tasks = `/proc/${child.pid}/task`;
  return readdirSync(tasks).flatMap((task) =>
    readFileSync(join(tasks, task, "children"), "utf8")
      .split(" ")
      .filter(Boolean)
      .map(Number),
  );
}

test("a job killed with its server (kill -9) is taken again after the restart and finishes", async ({
  browser,
  lang,
  playwright,
}) => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(join(tmpdir(), "hikaya-e2e-media-kill-"));
  // A short lease, so the restarted server may take the job again seconds after the kill (the default is 120 s).
  const env = { DATA_DIR: dataDir, SEED_DEMO: "false", LOG_LEVEL: "info", MEDIA_JOB_LEASE_SECONDS: "3" };
  const output = { before: "", after: "" };
  let server = await startServer(env, { onOutput: (text) => (output.before += text) });
  const api = await playwright.request.newContext({ baseURL: server.url });
  let tab: Awaited<ReturnType<typeof consoleOn>> | null = null;
  try {
    // The operator makes a story of a 1080p video in the console.
    tab = await consoleOn(browser, server.url, lang);
    const { c } = tab;
    const s = c.s;
    await c.page.getByRole("link", { name: s.stories.new }).click();
    await c.page.getByLabel(s.story.titleEn, { exact: true }).fill(`E2E Killed job ${lang}`);
    await c.page.getByLabel(s.story.titleAr, { exact: true }).fill(`E2E Killed job ${lang}`);
    await c.upload(s.story.videoFile, join(clips, CLIP.long));
    await c.page.getByRole("button", { name: s.story.create }).click();
    await expect(c.toast(s.story.created)).toBeVisible();
    await expect(c.page).toHaveURL(/\/admin\/stories\/[0-9a-f-]{36}$/);
    const storyId = c.page.url().split("/").pop() as string;
    const token = await adminToken(api);
    const story = await api.get(`/api/admin/stories/${storyId}`, { headers: bearer(token) });
    expect(story.status()).toBe(200);
    const src = ((await story.json()) as { videoUrl: string }).videoUrl;

    // Processing, as the console says in the operator's language, and ffmpeg under way (progress written).
    const status = jobStatus(c);
    await expect(status).toHaveAttribute("data-status", "processing", { timeout: 60_000 });
    await expect(status).toContainText(s.mediaJob.processing.split("{{")[0] as string);
    await expect
      .poll(async () => (await jobState(api, token, src))?.progress ?? 0, { timeout: 60_000, intervals: [250] })
      .toBeGreaterThan(0);
    const running = await jobState(api, token, src);
    expect(running?.status, "the job finished before the server could be killed").toBe("processing");

    // kill -9: no shutdown hook runs, the claim stays in the database until its lease lapses.
    const ffmpeg = childrenOf(server.process);
    const killed = new Promise((resolve) => server.process.once("exit", resolve));
    server.process.kill("SIGKILL");
    await killed;
    // Its ffmpeg dies with it (a parent-death signal, modules/media/ffmpeg.ts), not running on beside the retry.
    expect(ffmpeg.length).toBeGreaterThan(0);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(() => ffmpeg.filter(alive), { timeout: 10_000 }).toEqual([]);
    const [claim, ...more] = mediaLines(output.before, "media job started");
    expect(more).toEqual([]);
    expect(claim).toMatchObject({ attempt: 1 });
    expect(mediaLines(output.before, "media job ready")).toEqual([]);

    // The same data and address, a new process: the console left open follows the job to the end.
    server = await startServer({ ...env, PORT: new URL(server.url).port }, { onOutput: (text) => (output.after += text) });
    await expect(status).toHaveAttribute("data-status", "ready", { timeout: 120_000 });
    await expect(status).toHaveText(`${s.mediaJob.label} ${s.mediaJob.ready}`);

    // Taken again by the new worker as a second attempt, and finished by it; stored so.
    const [again, ...others] = mediaLines(output.after, "media job started");
    expect(others).toEqual([]);
    expect(again).toMatchObject({ job: claim?.job, attempt: 2 });
    expect(again?.worker).not.toBe(claim?.worker);
    expect(mediaLines(output.after, "media job ready")).toEqual([expect.objectContaining({ job: claim?.job, attempt: 2 })]);
    const db = new DatabaseSync(join(dataDir, "hikaya.db"), { readOnly: true });
    try {
      expect(db.prepare("select id, status, attempts from media_jobs").all()).toEqual([
        { id: claim?.job, status: "ready", attempts: 2 },
      ]);
    } finally {
      db.close();
    }
    await playStream(api, server.url, src);
  } finally {
    await tab?.context.close();
    await api.dispose();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** A new PostgreSQL database on TEST_DATABASE_URL's server (CI sets it; locally the server tests' default). */
async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hikaya_e2e_media_${Math.random().toString(36).slice(2, 10)}`;
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.query(sql);
    } catch (error) {
      throw new Error(
        `The replicas test needs PostgreSQL: set TEST_DATABASE_URL to a server whose user may create databases (tried ${admin}): ${String(error)}`,
      );
    } finally {
      await client.end().catch(() => {});
    }
  };
  await query(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => query(`drop database if exists ${name} with (force)`) };
}

test("on two replicas over PostgreSQL and S3 each job runs once, and each replica serves the other's streams", async ({
  browser,
  lang,
  playwright,
}) => {
  test.setTimeout(240_000);
  const s3 = await startTestS3();
  const database = await freshDatabase();
  const output = { a: "", b: "" };
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  const apis: APIRequestContext[] = [];
  let tab: Awaited<ReturnType<typeof consoleOn>> | null = null;
  try {
    // Default lease (120 s): a replica must never take a job the other is running.
    const env = { ...s3.env, DATABASE_URL: database.url, SEED_DEMO: "false", LOG_LEVEL: "info" };
    for (const name of ["a", "b"] as const) servers.push(await startServer(env, { onOutput: (text) => (output[name] += text) }));
    const replicas = servers.map((server, i) => ({ name: i === 0 ? "a" : ("b" as "a" | "b"), url: server.url }));
    for (const server of servers) apis.push(await playwright.request.newContext({ baseURL: server.url }));
    const [apiA, apiB] = apis as [APIRequestContext, APIRequestContext];
    const token = await adminToken(apiA);

    // Four stories, two made through each replica, in turns: each replica's worker is woken by its own, and the
    // jobs not taken at once wait in the one queue for whichever worker is free first.
    const paths = await Promise.all(
      CLIP.short.map(async (name, i) => {
        const upload = await (i % 2 === 0 ? apiA : apiB).post("/api/admin/uploads/story-video", {
          headers: bearer(token),
          multipart: { file: { name, mimeType: "video/mp4", buffer: readFileSync(join(clips, name)) } },
        });
        expect(upload.status(), await upload.text()).toBe(200);
        return ((await upload.json()) as { path: string }).path;
      }),
    );
    const created: { id: string; videoUrl: string }[] = [];
    for (const [i, path] of paths.entries()) {
      const title = `E2E Replicas ${lang} ${i}`;
      const story = await (i % 2 === 0 ? apiA : apiB).post("/api/admin/stories", {
        headers: bearer(token),
        data: { titleEn: title, titleAr: title, videoUrl: path },
      });
      expect(story.status(), await story.text()).toBe(200);
      created.push((await story.json()) as { id: string; videoUrl: string });
    }
    const srcs = created.map((story) => story.videoUrl);
    await expect
      .poll(
        async () => {
          const res = await apiB.post("/api/admin/media/status", { headers: bearer(token), data: { paths: srcs } });
          return ((await res.json()) as { states: ({ status: string } | null)[] }).states.map((state) => state?.status);
        },
        { timeout: 120_000, intervals: [500] },
      )
      .toEqual(srcs.map(() => "ready"));

    // Once each: one attempt per job in the database, and one claim per job in the two logs together, finished
    // by the replica that claimed it.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const rows = (await client.query("select id, object_key, status, attempts from media_jobs order by id")).rows as {
      id: string;
      object_key: string;
      status: string;
      attempts: number;
    }[];
    await client.end();
    expect(rows).toHaveLength(srcs.length);
    for (const row of rows) expect(row).toMatchObject({ status: "ready", attempts: 1 });
    const claims = replicas.flatMap((r) => mediaLines(output[r.name], "media job started").map((line) => ({ ...line, by: r })));
    const finished = replicas.flatMap((r) => mediaLines(output[r.name], "media job ready").map((line) => ({ ...line, by: r })));
    expect(claims.map((c) => c.job).sort()).toEqual(rows.map((row) => row.id));
    expect(finished.map((f) => f.job).sort()).toEqual(rows.map((row) => row.id));
    for (const claim of claims) {
      expect(claim.attempt).toBe(1);
      expect(finished.find((f) => f.job === claim.job)?.by.name).toBe(claim.by.name);
    }
    // Which replica took which job is up to them; both usually do, each woken by its own uploads.
    test.info().annotations.push({
      type: "jobs per replica",
      description: replicas.map((r) => `${r.name}: ${claims.filter((c) => c.by === r).length}`).join(", "),
    });

    // A family plays each story's stream through the replica that did not make it: the files are in the shared
    // store, not on the maker's disk. Each story opens once the one before it is watched.
    const person = await signUp(apiB);
    const family = bearer(person.token);
    const processedBy = (src: string) => {
      const row = rows.find((r) => src.includes(r.object_key));
      return claims.find((c) => c.job === row?.id)?.by;
    };
    for (let i = 0; i < created.length; i++) {
      const list = (await (await apiB.get("/api/stories", { headers: family })).json()) as { id: string; url?: string }[];
      // Families see the stories in the order they were made.
      expect(list.map((entry) => entry.id)).toEqual(created.map((c) => c.id));
      const story = list[i];
      const maker = processedBy(story?.url as string);
      expect(maker, `no replica processed ${story?.url}`).toBeDefined();
      const other = replicas.find((r) => r !== maker) as (typeof replicas)[number];
      await playStream(other.name === "a" ? apiA : apiB, other.url, story?.url as string);
      const watched = await apiB.post(`/api/users/${person.userId}/watchStory/${story?.id}`, { headers: family });
      expect(watched.status(), await watched.text()).toBe(200);
    }

    // The console on the other replica shows the first story's job as ready, in the operator's language.
    const first = created[0] as { id: string; videoUrl: string };
    const other = replicas.find((r) => r !== processedBy(first.videoUrl)) as (typeof replicas)[number];
    tab = await consoleOn(browser, other.url, lang);
    await tab.c.page.goto(`/admin/stories/${first.id}`);
    await expect(jobStatus(tab.c)).toHaveText(`${tab.c.s.mediaJob.label} ${tab.c.s.mediaJob.ready}`);
  } finally {
    await tab?.context.close();
    for (const api of apis) await api.dispose();
    for (const server of servers) await server.stop();
    await database.drop();
    await s3.close();
  }
});
