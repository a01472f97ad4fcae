/**
 * Warm start (issue 15; `npm run bench -- start`): from spawning the server as `npm start` runs it (the bundle
 * `apps/server/build.ts` makes, built afresh into a temporary folder) on a data directory that already holds a
 * migrated database to its "running at" line, median of START_RUNS, beside the same server started from its sources
 * (`node apps/server/src/main.mjs`) and a bare node:http server, alternating, in the same run (pinned to one core
 * where taskset exists). The first start (a fresh database to migrate) is reported too, and not counted. The compile
 * cache is the one main.mjs turns on itself (NODE_COMPILE_CACHE is not passed on). Wall time is the goal; the CPU
 * time the process spent until then (from /proc) shows how much of the wall time is the machine's own load.
 * START_MAIN=<path> times another entry (another checkout's main.mjs) in the bundle's place.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fail, report } from "./lib.ts";

const CMD = "npm run bench -- start";
const RUNS = Number(process.env.START_RUNS ?? 5);
const GOAL_MS = 600;
const SERVER = join(import.meta.dirname, "../apps/server");
const SOURCES_MAIN = join(SERVER, "src/main.mjs");
const BARE = `require("node:http").createServer((q, s) => s.end()).listen(0, "127.0.0.1", () => console.log("running at"))`;

const PIN = (existsSync("/usr/bin/taskset") || existsSync("/bin/taskset")) && cores() >= 2;
function cores() {
  try {
    return Number(execFileSync("nproc", { encoding: "utf8" }).trim());
  } catch {
    return 1;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim() || 100);

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Spawns one start, waits for its "running at" line, stops it; wall ms from spawn, CPU ms until then. */
function start(args: string[], env: Record<string, string>): Promise<{ wallMs: number; cpuMs: number }> {
  const argv = PIN ? ["taskset", "-c", "0", process.execPath, ...args] : [process.execPath, ...args];
  const t0 = performance.now();
  const { NODE_COMPILE_CACHE: _own, ...inherited } = process.env;
  const child = spawn(argv[0] as string, argv.slice(1), {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("no 'running at' line within 60 s"));
    }, 60_000);
    let out = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (text: string) => {
      out += text;
      if (!out.includes("running at")) return;
      const wallMs = performance.now() - t0;
      // taskset execs node in place: the pid is the server's.
      const cpu = cpuMs(child.pid as number);
      clearTimeout(timer);
      child.once("exit", () => resolve({ wallMs, cpuMs: cpu }));
      child.kill("SIGTERM");
      out = "";
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (out) reject(new Error(`server exited with ${code} before listening`));
    });
  });
}

/** The bundle `npm start` runs, built now from this checkout into a folder beside src (build.ts says why there). */
function buildBundle(): { main: string; remove(): void } {
  const out = mkdtempSync(join(SERVER, "dist-bench-"));
  const built = spawnSync(process.execPath, [join(SERVER, "build.ts"), out], { stdio: "inherit" });
  if (built.status !== 0) throw new Error("server build failed");
  return { main: join(out, "main.mjs"), remove: () => rmSync(out, { recursive: true, force: true }) };
}

export async function benchWarmStart() {
  const bundle = process.env.START_MAIN ? { main: process.env.START_MAIN, remove() {} } : buildBundle();
  const MAIN = bundle.main;
  console.log(
    `start: ${RUNS} warm starts of ${MAIN} vs the sources' main.mjs and a bare node:http, alternating${PIN ? ", on core 0 (taskset)" : ""}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "hikaya-start-"));
  const env = {
    DATA_DIR: join(dir, "data"),
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  };
  try {
    const first = await start([MAIN], env);
    await start([SOURCES_MAIN], env); // fills the compile cache for the sources' modules
    const app: { wallMs: number; cpuMs: number }[] = [];
    const sources: { wallMs: number; cpuMs: number }[] = [];
    const bare: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      app.push(await start([MAIN], env));
      sources.push(await start([SOURCES_MAIN], env));
      bare.push(await start(["-e", BARE], {}));
    }
    const wall = median(app.map((r) => r.wallMs));
    const cpu = median(app.map((r) => r.cpuMs));
    const bareWall = median(bare.map((r) => r.wallMs));
    const walls = app.map((r) => r.wallMs);
    const spread = (Math.max(...walls) - Math.min(...walls)) / wall;
    report(
      `warm start to listening (existing database, median of ${RUNS}): app as npm start runs it / from sources / bare node:http`,
      `${wall.toFixed(0)} ms (CPU ${cpu.toFixed(0)} ms) / ${median(sources.map((r) => r.wallMs)).toFixed(0)} ms (CPU ${median(sources.map((r) => r.cpuMs)).toFixed(0)} ms) / ${bareWall.toFixed(0)} ms (CPU ${median(bare.map((r) => r.cpuMs)).toFixed(0)} ms): ${(wall / bareWall).toFixed(1)}× bare; goal < ${GOAL_MS} ms; runs ${walls.map((w) => w.toFixed(0)).join(", ")}; first start (migrating a fresh database) ${first.wallMs.toFixed(0)} ms`,
      CMD,
    );
    if (wall > GOAL_MS * (1 + spread))
      fail(`warm start ${wall.toFixed(0)} ms > ${GOAL_MS} ms (its runs spread ±${(spread * 100).toFixed(0)} %)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    bundle.remove();
  }
}

if (import.meta.main) {
  const { printTable, failures } = await import("./lib.ts");
  await benchWarmStart();
  printTable();
  process.exit(failures.length ? 1 : 0);
}
