/**
 * The cost of metrics (issue 41), on the large database of `scale-program.ts`: the app twice in its own processes
 * (`speed-server.ts app`), METRICS_TOKEN unset and set, each driven by autocannon in a third (`speed-load.ts`) with a
 * fixed number of requests to the family's story list and to GET /auth/v1/user; server CPU per request from
 * /proc/<pid>/stat (utime + stime), rounds alternating between the two; goal on ÷ off ≤ 1.05×. With taskset and two
 * cores or more, the servers run on core 0 and the load on core 1, as in `speed.ts`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fail, report } from "./lib.ts";
import type { Program } from "./scale-program.ts";
import { appEnv } from "./scale-program-seed.ts";

const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 5);
const GOAL = 1.05;
const TOKEN = "bench-metrics-token-0123456789";
const PIN = (existsSync("/usr/bin/taskset") || existsSync("/bin/taskset")) && availableParallelism() >= 2;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
const pinned = (core: number, argv: string[]) => (PIN ? ["taskset", "-c", String(core), ...argv] : argv);

interface Server {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const [cmd, ...args] = pinned(0, [process.execPath, join(import.meta.dirname, "speed-server.ts"), "app"]);
  const dataDir = mkdtempSync(join(tmpdir(), "hikaya-scale-cpu-"));
  const child: ChildProcess = spawn(cmd as string, args, {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      RATE_LIMIT_FACTOR: "1000000",
      MEDIA_PROCESS_DEMO: "false",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("app did not start in 60 s")), 60_000);
    child.once("exit", (code) => reject(new Error(`app exited (${code}) before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dataDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          done();
        });
        child.kill("SIGTERM");
      }),
  };
}

function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Server CPU microseconds per request over `amount` requests. */
async function cpuPerRequest(server: Server, path: string, headers: Record<string, string>, amount: number) {
  const options = { url: `${server.url}${path}`, headers, connections: 8, amount };
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
  const r = JSON.parse(out.trim().split("\n").pop() as string) as { requests: number; errors: number; non2xx: number };
  if (r.errors || r.non2xx) throw new Error(`${path}: ${r.errors} errors, ${r.non2xx} non-2xx`);
  return spent / r.requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function benchMetricsCpu(large: Program) {
  console.log(
    `scale: CPU per request, metrics off and on (${PIN ? "servers on core 0, load on core 1" : "NOT pinned"}, ${REQUESTS} requests × ${ROUNDS} rounds)`,
  );
  const off = await startServer(appEnv(large.url));
  const on = await startServer({ ...appEnv(large.url), METRICS_TOKEN: TOKEN });
  try {
    const family = large.probes[0]?.headers ?? {};
    const routes = [
      { name: "family's story list (GET /api/stories)", path: "/api/stories", headers: family },
      { name: "GET /auth/v1/user", path: "/auth/v1/user", headers: { ...family, apikey: large.anonKey } },
    ];
    for (const route of routes) {
      const samples = { off: [] as number[], on: [] as number[] };
      for (const s of [off, on]) await cpuPerRequest(s, route.path, route.headers, Math.ceil(REQUESTS / 4));
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so a round's drift in the machine's load falls on both.
        const order = round % 2 ? ([on, off] as const) : ([off, on] as const);
        for (const s of order)
          (s === on ? samples.on : samples.off).push(await cpuPerRequest(s, route.path, route.headers, REQUESTS));
      }
      const ratios = samples.on.map((x, k) => x / (samples.off[k] as number));
      const ratio = median(samples.on) / median(samples.off);
      const noise = (Math.max(...ratios) - Math.min(...ratios)) / 2 / median(ratios);
      report(
        `${route.name} server CPU per request, metrics on ÷ off (${large.families.toLocaleString("en")} families)`,
        `${ratio.toFixed(3)}× (goal ≤ ${GOAL}×; ${median(samples.on).toFixed(0)} vs ${median(samples.off).toFixed(0)} µs, rounds ${ratios.map((r) => r.toFixed(3)).join("/")})`,
        "npm run bench -- scale",
      );
      if (ratio > GOAL * (1 + noise))
        fail(
          `${route.name}: metrics cost ${ratio.toFixed(3)}× CPU per request (goal ≤ ${GOAL}×, noise ±${(noise * 100).toFixed(1)}%)`,
        );
    }
    const metrics = await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await metrics.text();
    if (!text.includes('route="/api/stories"')) throw new Error("the metrics-on server did not count the story list");
  } finally {
    await off.stop();
    await on.stop();
  }
}
