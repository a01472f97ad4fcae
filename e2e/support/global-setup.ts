import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..", "..");

export const E2E_ADMIN = { email: "e2e-admin@hikaya.test", password: "e2e-admin-password" };

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() => (typeof address === "object" && address ? ok(address.port) : fail(new Error("no port"))));
    });
  });
}

export interface ServerOptions {
  /**
   * Receives what the server writes (stdout and stderr) instead of this run's own output, for a spec that reads its
   * log (with LOG_LEVEL=info in `env`).
   */
  onOutput?: (text: string) => void;
}

/**
 * The built server on a free port (PORT in `env` picks one), with its own DATA_DIR unless `env` names one; a DATA_DIR
 * it made is removed by `stop()`, one given is kept (a spec restarting a server on the same data).
 */
export async function startServer(
  env: Record<string, string> = {},
  options: ServerOptions = {},
): Promise<{ url: string; process: ChildProcess; dataDir: string; stop(): Promise<void> }> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "hikaya-e2e-"));
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [process.env.E2E_SERVER_MAIN ?? join(root, "apps/server/dist/main.mjs")], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      // Every e2e browser signs in from 127.0.0.1: keep the per-IP auth limits out of the way, and hashing cheaper.
      AUTH_RATE_LIMIT_FACTOR: "100",
      RATE_LIMIT_FACTOR: "100",
      AUTH_SCRYPT_LOG_N: "14",
      // The demo's videos stay unprocessed: a spec processes only what it uploads (and CPU stays for the browser).
      MEDIA_PROCESS_DEMO: "false",
      ...(process.env.E2E_WEB_DIST ? { WEB_DIST_DIR: process.env.E2E_WEB_DIST } : {}),
      ...env,
    },
    stdio: ["ignore", options.onOutput ? "pipe" : "inherit", options.onOutput ? "pipe" : "inherit"],
  });
  const { onOutput } = options;
  if (onOutput) for (const stream of [child.stdout, child.stderr]) stream?.setEncoding("utf8").on("data", onOutput);
  // Ended by a signal (a spec's kill -9), a process has no exit code but a signal code.
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited()) throw new Error(`server exited with ${child.exitCode ?? child.signalCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("server did not become healthy in 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    process: child,
    dataDir,
    async stop() {
      if (!exited()) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export default async function globalSetup() {
  // Each run builds into its own folder, so runs side by side never serve each other's half-built app.
  const webDist = process.env.E2E_WEB_DIST ?? mkdtempSync(join(tmpdir(), "hikaya-e2e-web-"));
  if (!process.env.E2E_WEB_DIST) {
    const build = spawnSync("npx", ["vite", "build", "--outDir", webDist, "--emptyOutDir"], {
      cwd: join(root, "apps/web"),
      stdio: "inherit",
    });
    if (build.status !== 0) throw new Error("web build failed");
  }
  process.env.E2E_WEB_DIST = webDist;
  // The server as `npm start` runs it: the bundle, built for this run beside apps/server/src (its depth matters,
  // see apps/server/build.ts), so the tests drive what operators run.
  const serverDist = process.env.E2E_SERVER_MAIN ? undefined : mkdtempSync(join(root, "apps/server/dist-e2e-"));
  if (serverDist) {
    const build = spawnSync(process.execPath, [join(root, "apps/server/build.ts"), serverDist], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("server build failed");
    process.env.E2E_SERVER_MAIN = join(serverDist, "main.mjs");
  }
  const server = await startServer({ WEB_DIST_DIR: webDist });
  process.env.E2E_BASE_URL = server.url;
  process.env.E2E_DATA_DIR = server.dataDir;
  return async () => {
    await server.stop();
    if (serverDist) rmSync(serverDist, { recursive: true, force: true });
  };
}
