/**
 * The two servers of the live bench (`live.ts`), each its own process: the real app on a temporary SQLite database
 * with people and tokens made for the bench, and a bare node:http SSE broadcaster. Spawned by `spawnServer`;
 * IPC asks for a settled heap (memory is read from /proc by the parent) and stops them.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { Session } from "node:inspector";
import type { AddressInfo } from "node:net";

/** Facilitator accounts; each holds the per-account cap of five tabs. */
export const FACILITATORS = 10;

export const PIN = (existsSync("/usr/bin/taskset") || existsSync("/bin/taskset")) && cores() >= 2;
export function cores() {
  try {
    return Number(execFileSync("nproc", { encoding: "utf8" }).trim());
  } catch {
    return 1;
  }
}

export interface Person {
  id: string;
  token: string;
}

/** Child: the real app on a temporary SQLite database, with people and tokens made for the bench. */
async function serveApp(families: number) {
  const { startApp } = await import("./lib.ts");
  const { createTestUser } = await import("../apps/server/src/test/test-users.ts");
  const running = await startApp({ SEED_DEMO: "false" });
  const people: Person[] = [];
  for (let i = 0; i < families; i++) people.push(await createTestUser(running.app));
  const staff: Person[] = [];
  for (let i = 0; i < FACILITATORS; i++) staff.push(await createTestUser(running.app, { admin: true }));
  childLoop(() => running.close());
  process.send?.({ type: "ready", url: running.url, families: people, facilitators: staff });
}

/**
 * Child: the baseline. What any SSE broadcaster must do and nothing more: keep each response, route a posted
 * message to its conversation's connections and to every facilitator connection, serialised once.
 */
async function serveBaseline(families: number) {
  const byUser = new Map<string, Set<ServerResponse>>();
  const all = new Set<ServerResponse>();
  let nextId = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/stream") {
      const user = url.searchParams.get("user");
      let set = all;
      if (user) {
        set = byUser.get(user) ?? new Set();
        byUser.set(user, set);
      }
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      res.write(`retry: 1500\n\nevent: ready\ndata: {"lastId":"0"}\n\n`);
      set.add(res);
      res.on("close", () => set.delete(res));
      return;
    }
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const m = JSON.parse(body) as { to: string; from: string; role: string; message: string; clientId: string };
      const event = {
        _id: String(++nextId),
        conversation: m.to,
        from: m.from,
        senderRole: m.role,
        messageType: "text",
        message: m.message,
        durationSeconds: null,
        clientId: m.clientId,
        createdAt: new Date().toISOString(),
      };
      const frame = `id: ${event._id}\nevent: message\ndata: ${JSON.stringify(event)}\n\n`;
      for (const r of byUser.get(m.to) ?? []) r.write(frame);
      for (const r of all) r.write(frame);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: event }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const ids = (n: number) => Array.from({ length: n }, () => ({ id: randomUUID(), token: "-" }));
  childLoop(async () => {
    server.closeAllConnections();
    server.close();
  });
  process.send?.({
    type: "ready",
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    families: ids(families),
    facilitators: ids(FACILITATORS),
  });
}

/**
 * IPC: "gc" (settle the heap so /proc shows what connections hold), "profile" (start a CPU profile) and
 * "profiled" (write it to `file`, see LIVE_CPU_PROF), "stop".
 */
function childLoop(close: () => Promise<void>) {
  const gc = (globalThis as { gc?: () => void }).gc;
  let profiler: Session | null = null;
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      profiler?.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  process.on("message", async (m: { type: string; file?: string }) => {
    if (m.type === "gc") {
      for (let i = 0; i < 3; i++) gc?.();
      await new Promise((r) => setTimeout(r, 100));
      gc?.();
      process.send?.({ type: "gc" });
    }
    if (m.type === "profile") {
      profiler = new Session();
      profiler.connect();
      await post("Profiler.enable");
      await post("Profiler.start");
      process.send?.({ type: "profile" });
    }
    if (m.type === "profiled" && profiler && m.file) {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      profiler.disconnect();
      profiler = null;
      writeFileSync(m.file, JSON.stringify(profile));
      process.send?.({ type: "profiled" });
    }
    if (m.type === "stop") {
      await close();
      process.exit(0);
    }
  });
}

export interface Server {
  kind: "app" | "baseline";
  child: ChildProcess;
  url: string;
  families: Person[];
  facilitators: Person[];
}

export function spawnServer(kind: Server["kind"], families: number): Promise<Server> {
  const args = ["--expose-gc", import.meta.filename, `--live-${kind}`, String(families)];
  const [cmd, ...rest] = PIN ? ["taskset", "-c", "0", process.execPath, ...args] : [process.execPath, ...args];
  const child = spawn(cmd as string, rest, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
    child.once("message", (m: { url: string; families: Person[]; facilitators: Person[] }) =>
      resolve({ kind, child, url: m.url, families: m.families, facilitators: m.facilitators }),
    );
  });
}

function ask(child: ChildProcess, type: string, extra: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off("message", on);
      resolve();
    };
    child.on("message", on);
    child.send({ type, ...extra });
  });
}

/**
 * LIVE_CPU_PROF=<dir>: a CPU profile of each server over the measured bursts only (not its start, nor the
 * connections opening), `<dir>/<kind>-<connections>.cpuprofile`; open it in Chrome DevTools or speedscope.
 */
export const PROFILE_DIR = process.env.LIVE_CPU_PROF || null;

export async function startProfile(server: Server) {
  if (PROFILE_DIR) await ask(server.child, "profile");
}

export async function writeProfile(server: Server, connections: number) {
  if (!PROFILE_DIR) return;
  mkdirSync(PROFILE_DIR, { recursive: true });
  await ask(server.child, "profiled", { file: `${PROFILE_DIR}/${server.kind}-${connections}.cpuprofile` });
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  } catch {
    return 100;
  }
})();

/** CPU time a server has used (utime + stime from /proc/<pid>/stat), in milliseconds. */
export function cpuMsOf(server: Server): number {
  const stat = readFileSync(`/proc/${server.child.pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at ") ": utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** Resident memory of a process from /proc (after it collected its garbage), in bytes. */
export async function rssOf(server: Server): Promise<number> {
  await ask(server.child, "gc");
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

export async function stop(server: Server) {
  server.child.removeAllListeners("exit");
  server.child.send({ type: "stop" });
  await new Promise((r) => {
    const t = setTimeout(() => {
      server.child.kill("SIGKILL");
      r(null);
    }, 10_000);
    server.child.once("exit", () => {
      clearTimeout(t);
      r(null);
    });
  });
}

if (import.meta.main) {
  const mode = process.argv[2];
  const families = Number(process.argv[3]);
  if (mode === "--live-app") await serveApp(families);
  else if (mode === "--live-baseline") await serveBaseline(families);
}
