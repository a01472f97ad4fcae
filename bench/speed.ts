// Issue 15's bench: the app against a bare node:http server and a minimal Fastify answering the same bytes, each
// server in its own process pinned to one core and the load generator in another pinned to the other, rounds
// alternating between the three. Server CPU per request comes from /proc/<pid>/stat (utime + stime).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { REPO_ROOT } from "../apps/server/src/config.ts";
import { fail, report } from "./lib.ts";
import type { Fixture } from "./speed-server.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
// `SPEED_ROUTES=profile,auth_user` measures only those rows (names as in prepare()), to work on one route.
const ONLY = (process.env.SPEED_ROUTES ?? "").split(",").filter(Boolean);
// Issue 15's goals on SQLite: at least half of bare node:http's throughput, at most twice its CPU per request.
const GOAL_THROUGHPUT = 0.5;
const GOAL_CPU = 2;

const TASKSET = existsSync("/usr/bin/taskset") || existsSync("/bin/taskset");
const CORES = (() => {
  try {
    return Number(execFileSync("nproc", { encoding: "utf8" }).trim());
  } catch {
    return 1;
  }
})();
const PIN = TASKSET && CORES >= 2;
const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  } catch {
    return 100;
  }
})();

type Target = "app" | "bare" | "fastify" | "app_pg";

interface Route {
  name: string;
  label: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Goals other than the API's: a large file's Range is held to a bare fs stream's CPU (issue 15). */
  goalCpu?: number;
  goalThroughput?: number;
}

// Issue 15: on PostgreSQL, at least 80 % of the SQLite figure for the same route.
const GOAL_PG = 0.8;
// A Range of a large file: CPU per request at most 1.2× a bare fs stream of the same bytes.
const GOAL_RANGE_CPU = 1.2;
const RANGE_FILE = { bucket: "videos", key: "bench-range.mp4", bytes: 2 * 1024 * 1024, rangeEnd: 1024 * 1024 - 1 };

interface Sample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
  non2xx: number;
}

interface Server {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

const pinned = (core: number, argv: string[]) => (PIN ? ["taskset", "-c", String(core), ...argv] : argv);

async function startServer(mode: Target, env: Record<string, string>, fixtures?: string): Promise<Server> {
  const [cmd, ...args] = pinned(0, [
    process.execPath,
    join(import.meta.dirname, "speed-server.ts"),
    mode,
    ...(fixtures ? [fixtures] : []),
  ]);
  const child: ChildProcess = spawn(cmd as string, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start in 60 s`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${mode} server exited (${code}) before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    // taskset execs node in place: the pid is the server's.
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/** utime + stime of a process, in microseconds. */
function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at ") ": utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

function loadOptions(url: string, route: Route) {
  return {
    url,
    method: route.method,
    headers: route.headers,
    ...(route.body ? { body: route.body } : {}),
    connections: CONNECTIONS,
    duration: DURATION_S,
  };
}

function commandOf(route: Route, target: string): string {
  const parts = [
    ...(PIN ? ["taskset -c 1"] : []),
    `npx autocannon -c ${CONNECTIONS} -d ${DURATION_S} -m ${route.method}`,
    // Tokens shortened: they are the bench's own, minted at start.
    ...Object.entries(route.headers).map(([k, v]) => `-H '${k}: ${v.length > 24 ? `${v.slice(0, 12)}…` : v}'`),
    ...(route.body ? [`-b '${route.body}'`] : []),
    `http://127.0.0.1:<${target}>${target === "app" || target === "app_pg" ? route.path : `/r/${route.name}`}`,
  ];
  return parts.join(" ");
}

async function measure(server: Server, url: string, route: Route, duration = DURATION_S): Promise<Sample> {
  const options = { ...loadOptions(url, route), duration };
  const [cmd, ...args] = pinned(1, [process.execPath, join(import.meta.dirname, "speed-load.ts"), JSON.stringify(options)]);
  const before = cpuUs(server.pid);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(cmd as string, args, { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => {
      text += d.toString();
    });
    child.once("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited ${code}`))));
  });
  const spent = cpuUs(server.pid) - before;
  const r = JSON.parse(out.trim().split("\n").pop() as string) as {
    requests: number;
    requestsPerSecond: number;
    p50: number;
    p99: number;
    errors: number;
    non2xx: number;
  };
  return { ...r, cpuUsPerRequest: r.requests > 0 ? spent / r.requests : Number.POSITIVE_INFINITY };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
/** Half the spread of the rounds relative to their median: how much one figure moved between rounds. */
const noise = (xs: number[]) => (xs.length < 2 ? 0 : (Math.max(...xs) - Math.min(...xs)) / 2 / median(xs));

async function json(res: Response) {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Signs a person up and reads what the routes need: their token, the anon key, a thumbnail's address. */
async function prepare(base: string): Promise<Route[]> {
  const phoneNumber = `079${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
  const signUp = await json(
    await fetch(`${base}/api/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ country: "JO", phoneNumber, password: "bench-pass-1" }),
    }),
  );
  const token = signUp.token as string;
  const { anonKey } = (await json(await fetch(`${base}/api/settings`))) as { anonKey: string };
  const visitorList = JSON.stringify(await json(await fetch(`${base}/api/stories`)));
  const thumbnail = /"thumbnailUrl":"([^"]+)"/.exec(visitorList)?.[1];
  if (!thumbnail) throw new Error("no thumbnailUrl in the visitor's /api/stories: is SEED_DEMO on?");
  const thumbUrl = new URL(thumbnail, base);
  const thumbPath = thumbUrl.pathname + thumbUrl.search;
  const bearer = { authorization: `Bearer ${token}` };
  return [
    { name: "stories_signed_in", label: "signed-in GET /api/stories", method: "GET", path: "/api/stories", headers: bearer },
    { name: "stories_visitor", label: "visitor GET /api/stories", method: "GET", path: "/api/stories", headers: {} },
    { name: "profile", label: "token API POST /api/profile", method: "POST", path: "/api/profile", headers: bearer },
    {
      name: "auth_user",
      label: "GET /auth/v1/user",
      method: "GET",
      path: "/auth/v1/user",
      headers: { ...bearer, apikey: anonKey },
    },
    { name: "login_html", label: "/login HTML", method: "GET", path: "/login", headers: { accept: "text/html" } },
    { name: "thumbnail", label: "thumbnail", method: "GET", path: thumbPath, headers: {} },
    {
      name: "range_1mb",
      label: "1 MB Range of a 2 MB video",
      method: "GET",
      path: `/storage/v1/object/public/${RANGE_FILE.bucket}/${RANGE_FILE.key}`,
      headers: { range: `bytes=0-${RANGE_FILE.rangeEnd}` },
      goalCpu: GOAL_RANGE_CPU,
      goalThroughput: 1 / GOAL_RANGE_CPU,
    },
  ];
}

/** A 2 MB file in the app's local storage for the Range row, written before the app starts (no import needed). */
function writeRangeFile(dataDir: string): string {
  const dir = join(dataDir, "storage", RANGE_FILE.bucket);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, RANGE_FILE.key);
  writeFileSync(path, Buffer.alloc(RANGE_FILE.bytes, 7));
  return path;
}

// Every header of the app's answer goes into the baselines' answers (security headers included: they are bytes on
// the wire every answer pays for), but for those each server writes itself.
const OWN_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

/** The app's answer to each route, byte for byte, for the baselines to send (the Range row streams the file). */
async function capture(base: string, routes: Route[], rangePath: string): Promise<Record<string, Fixture>> {
  const out: Record<string, Fixture> = {};
  for (const r of routes) {
    const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status >= 400) throw new Error(`${r.label}: the app answered ${res.status} ${body.toString().slice(0, 200)}`);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, h) => {
      if (!OWN_HEADERS.has(h)) headers[h] = v;
    });
    out[r.name] =
      r.name === "range_1mb"
        ? { status: res.status, headers, body: "", file: { path: rangePath, start: 0, end: RANGE_FILE.rangeEnd } }
        : { status: res.status, headers, body: body.toString("base64") };
  }
  return out;
}

/** A fresh PostgreSQL database for the app's PostgreSQL run, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a server. */
async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const admin = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!admin) return null;
  const name = `hikaya_bench_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A web build to serve `/login` from: the real one when built, else a stand-in page (said in the table). */
function webDist(dir: string): { path: string; real: boolean } {
  const real = join(REPO_ROOT, "apps/web/dist");
  if (existsSync(join(real, "index.html"))) return { path: real, real: true };
  const fake = join(dir, "web");
  mkdirSync(fake, { recursive: true });
  writeFileSync(
    join(fake, "index.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hikaya</title></head><body><div id="root"></div></body></html>`,
  );
  return { path: fake, real: false };
}

export async function benchSpeed() {
  console.log(
    `speed: the app vs bare node:http and a minimal Fastify, same bytes, ${ROUNDS} alternating rounds of ${DURATION_S} s, ` +
      (PIN
        ? "server on core 0, load generator on core 1 (taskset)"
        : `NOT pinned (${TASKSET ? `${CORES} core(s)` : "no taskset"})`),
  );
  const dir = mkdtempSync(join(tmpdir(), "hikaya-speed-"));
  const web = webDist(dir);
  const env = {
    DATA_DIR: join(dir, "data"),
    WEB_DIST_DIR: web.path,
    LOG_LEVEL: "silent",
    SEED_DEMO: "true",
    NODE_ENV: "production",
    // Production needs one; tokens are issued and checked by this same server, so any address does.
    PUBLIC_URL: "http://127.0.0.1",
    // One client from one address: the rate limits would measure themselves.
    RATE_LIMIT_FACTOR: "1000000",
    AUTH_RATE_LIMIT_FACTOR: "1000000",
  };
  const servers: Server[] = [];
  const database = await postgresDatabase();
  if (!database) console.log("speed: no PostgreSQL run (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a server to compare)");
  try {
    const rangePath = writeRangeFile(env.DATA_DIR);
    const app = await startServer("app", env);
    servers.push(app);
    const routes = await prepare(app.url);
    const fixturesPath = join(dir, "fixtures.json");
    writeFileSync(fixturesPath, JSON.stringify(await capture(app.url, routes, rangePath)));
    const bare = await startServer("bare", {}, fixturesPath);
    servers.push(bare);
    const fastify = await startServer("fastify", {}, fixturesPath);
    servers.push(fastify);
    const targets: Partial<Record<Target, Server>> = { app, bare, fastify };
    // The same app on PostgreSQL (its own data directory, the same files), with its own signed-up person.
    let pgRoutes: Route[] | null = null;
    if (database) {
      const pgEnv = { ...env, DATA_DIR: join(dir, "data-pg"), DATABASE_URL: database.url, STORAGE_DRIVER: "local" };
      writeRangeFile(pgEnv.DATA_DIR);
      const appPg = await startServer("app", pgEnv);
      servers.push(appPg);
      targets.app_pg = appPg;
      pgRoutes = await prepare(appPg.url);
    }
    const names = Object.keys(targets) as Target[];
    for (const [i, route] of routes.entries()) {
      if (ONLY.length && !ONLY.includes(route.name)) continue;
      const routeOf = (t: Target) => (t === "app_pg" ? (pgRoutes?.[i] as Route) : route);
      const urlOf = (t: Target) => `${targets[t]?.url}${t === "app" || t === "app_pg" ? routeOf(t).path : `/r/${route.name}`}`;
      const samples: Record<Target, Sample[]> = { app: [], bare: [], fastify: [], app_pg: [] };
      // One unmeasured second each first, so that no round pays for the JIT compiling a new path.
      for (const t of names) await measure(targets[t] as Server, urlOf(t), routeOf(t), 1);
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with the next target, so no target always runs first or last.
        const order = names.map((_, k) => names[(k + round) % names.length] as Target);
        for (const t of order) samples[t].push(await measure(targets[t] as Server, urlOf(t), routeOf(t)));
      }
      if (process.env.SPEED_SAMPLES) console.log(JSON.stringify(samples));
      record(route, samples, web.real);
      if (database) recordPostgres(route, samples);
    }
  } finally {
    for (const s of servers) await s.stop();
    await database?.drop().catch((error: unknown) => console.log(`speed: could not drop the bench database: ${String(error)}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The app on PostgreSQL against the app on SQLite, same route, same run. */
function recordPostgres(route: Route, samples: Record<Target, Sample[]>) {
  const m = (t: Target, k: keyof Sample) => median(samples[t].map((s) => s[k]));
  const broken = samples.app_pg.some((s) => s.errors > 0 || s.non2xx > 0);
  const ratio = m("app_pg", "requestsPerSecond") / m("app", "requestsPerSecond");
  const spread = noise(samples.app_pg.map((s) => s.requestsPerSecond)) + noise(samples.app.map((s) => s.requestsPerSecond));
  const verdict = broken ? "FAILED REQUESTS" : ratio < GOAL_PG * (1 - spread) ? "MISSES GOAL" : "ok";
  report(
    `speed (PostgreSQL): ${route.label}`,
    `app on PostgreSQL ${m("app_pg", "requestsPerSecond").toFixed(0)} req/s (p50 ${m("app_pg", "p50")} ms, ` +
      `${m("app_pg", "cpuUsPerRequest").toFixed(0)} µs app CPU/req, PostgreSQL's own CPU not counted); on SQLite ` +
      `${m("app", "requestsPerSecond").toFixed(0)} req/s; **${(ratio * 100).toFixed(1)}% of SQLite** (goal ≥ ${GOAL_PG * 100}%, ` +
      `noise ±${(spread * 100).toFixed(0)}%) — ${verdict}`,
    `${commandOf(route, "app_pg")} vs the same on <app>; BENCH_DATABASE_URL=postgres://… npm run bench -- speed`,
  );
  if (verdict !== "ok") fail(`${route.label} on PostgreSQL: ${verdict}`);
}

function record(route: Route, samples: Record<Target, Sample[]>, realWeb: boolean) {
  const m = (t: Target, k: keyof Sample) => median(samples[t].map((s) => s[k]));
  const broken = samples.app.some((s) => s.errors > 0 || s.non2xx > 0);
  const rps = {
    app: m("app", "requestsPerSecond"),
    bare: m("bare", "requestsPerSecond"),
    fastify: m("fastify", "requestsPerSecond"),
  };
  const cpu = { app: m("app", "cpuUsPerRequest"), bare: m("bare", "cpuUsPerRequest"), fastify: m("fastify", "cpuUsPerRequest") };
  const throughputRatio = rps.app / rps.bare;
  const cpuRatio = cpu.app / cpu.bare;
  // The noise of a ratio: the relative spreads of both of its sides, as measured in this run.
  const rpsNoise = noise(samples.app.map((s) => s.requestsPerSecond)) + noise(samples.bare.map((s) => s.requestsPerSecond));
  const cpuNoise = noise(samples.app.map((s) => s.cpuUsPerRequest)) + noise(samples.bare.map((s) => s.cpuUsPerRequest));
  const goalThroughput = route.goalThroughput ?? GOAL_THROUGHPUT;
  const goalCpu = route.goalCpu ?? GOAL_CPU;
  const missThroughput = throughputRatio < goalThroughput * (1 - rpsNoise);
  const missCpu = cpuRatio > goalCpu * (1 + cpuNoise);
  const label = `${route.label}${route.name === "login_html" && !realWeb ? " (stand-in index.html: apps/web/dist not built)" : ""}`;
  const verdict = broken ? "FAILED REQUESTS" : missThroughput || missCpu ? "MISSES GOAL" : "ok";
  report(
    `speed: ${label}`,
    `app ${rps.app.toFixed(0)} req/s (p50 ${m("app", "p50")} ms, p99 ${m("app", "p99")} ms, ${cpu.app.toFixed(0)} µs CPU/req); ` +
      `bare node:http ${rps.bare.toFixed(0)} req/s, ${cpu.bare.toFixed(0)} µs; Fastify ${rps.fastify.toFixed(0)} req/s, ${cpu.fastify.toFixed(0)} µs; ` +
      `**${(throughputRatio * 100).toFixed(1)}% of bare** (goal ≥ ${(goalThroughput * 100).toFixed(0)}%, noise ±${(rpsNoise * 100).toFixed(0)}%), ` +
      `${((rps.app / rps.fastify) * 100).toFixed(1)}% of Fastify; ` +
      `**CPU ${cpuRatio.toFixed(1)}× bare** (goal ≤ ${goalCpu}×, noise ±${(cpuNoise * 100).toFixed(0)}%), ${(cpu.app / cpu.fastify).toFixed(1)}× Fastify — ${verdict}`,
    `${commandOf(route, "app")} vs ${commandOf(route, "bare")} and <fastify>; npm run bench -- speed`,
  );
  if (verdict !== "ok") fail(`${route.label}: ${verdict}`);
}
