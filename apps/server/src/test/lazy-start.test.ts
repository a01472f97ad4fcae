import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../../build.ts";
import { startTestS3, type TestS3 } from "./s3-server.ts";

const SOURCES_MAIN = fileURLToPath(new URL("../main.mjs", import.meta.url));
const SERVER_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RECORDER = fileURLToPath(new URL("./module-recorder.ts", import.meta.url));
/** What start-up must not load unless the configuration uses it; the API docs' generator waits for a docs request. */
const OPTIONAL = [
  "@aws-sdk/",
  "/node_modules/pg/",
  "/web-push/",
  "/file-type/",
  "/otpauth/",
  "/uqr/",
  "/prom-client/",
  "/@fastify/swagger",
  "/@ffmpeg-installer/",
  "/@ffprobe-installer/",
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hikaya-lazy-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts `node <main>` until it listens, runs `whileRunning` against its address, stops it, and returns the modules it
 * had loaded by then (what requests made it load included).
 */
async function modulesOfStart(
  name: string,
  env: Record<string, string>,
  main = SOURCES_MAIN,
  whileRunning?: (url: string) => Promise<void>,
): Promise<string[]> {
  const out = join(dir, `${name}.txt`);
  // SQLite in its own DATA_DIR, whichever database the test run itself uses.
  const { DATABASE_URL: _sqlite, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", RECORDER, main], {
    env: {
      ...inherited,
      DATA_DIR: join(dir, name),
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      SEED_DEMO: "false",
      LOADED_MODULES_OUT: out,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const running = /running at (\S+)/.exec(output);
      if (running?.[1]) resolve(running[1]);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening: ${output}`)));
  });
  const exited = new Promise((r) => child.once("exit", r));
  try {
    await whileRunning?.(url);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
  return readFileSync(out, "utf8").split("\n");
}

describe("start-up loads only what the configuration uses", () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(async () => s3?.close());

  it("SQLite with local files: no S3 client, PostgreSQL driver, web-push, file sniffer, TOTP library or API docs", async () => {
    const loaded = await modulesOfStart("local", { STORAGE_DRIVER: "local" });
    expect(loaded.some((url) => url.endsWith("/app.ts"))).toBe(true);
    expect(OPTIONAL.filter((name) => loaded.some((url) => url.includes(name)))).toEqual([]);
  });

  it("S3 configured: the S3 driver loads, checks its bucket and the server starts", async () => {
    const loaded = await modulesOfStart("s3", s3.env);
    expect(loaded.some((url) => url.includes("/@aws-sdk/client-s3/"))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/s3-file-storage.ts"))).toBe(true);
  });
});

describe("the bundle `npm start` runs (apps/server/build.ts)", () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = mkdtempSync(join(SERVER_ROOT, "dist-test-"));
    await buildServer(bundle);
  }, 60_000);
  afterAll(() => rmSync(bundle, { recursive: true, force: true }));

  it("starts from the bundle's own files, not the sources, and loads no optional package", async () => {
    const loaded = await modulesOfStart("bundle", { STORAGE_DRIVER: "local" }, join(bundle, "main.mjs"));
    const own = loaded.filter((url) => url.startsWith("file:") && !url.includes("/node_modules/"));
    expect(own.some((url) => url.includes("/apps/server/src/") || url.includes("/packages/contracts/"))).toBe(false);
    // The entry and the chunk of main.ts: the app and its packages are not hundreds of modules any more. Beside them,
    // the chunks a lazily loaded part shares with start-up: the bus, file storage and metrics.ts (its no-op
    // `deps.metrics`, which the prom-client half loaded only with METRICS_TOKEN imports too).
    expect(own.filter((url) => url.startsWith(`file://${bundle}/`)).length).toBeLessThanOrEqual(6);
    expect(loaded.filter((url) => url.includes("/node_modules/")).length).toBeLessThan(60);
    expect(OPTIONAL.filter((name) => loaded.some((url) => url.includes(name)))).toEqual([]);
  });

  it("serves the API, the API docs and the metrics, whose packages load from node_modules", async () => {
    const token = "lazy-start-metrics-token";
    const loaded = await modulesOfStart(
      "bundle-serves",
      { STORAGE_DRIVER: "local", SEED_DEMO: "true", METRICS_TOKEN: token },
      join(bundle, "main.mjs"),
      async (url) => {
        const stories = await fetch(`${url}/api/stories`);
        expect(stories.status).toBe(200);
        expect(((await stories.json()) as unknown[]).length).toBeGreaterThan(0);
        const docs = await fetch(`${url}/api/docs/json`);
        expect(docs.status).toBe(200);
        expect(Object.keys(((await docs.json()) as { paths: object }).paths).length).toBeGreaterThan(100);
        const ui = await fetch(`${url}/api/docs/`);
        expect(ui.status).toBe(200);
        const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('hikaya_http_request_duration_seconds_count{route="/api/stories"');
      },
    );
    expect(loaded.some((url) => url.includes("/node_modules/prom-client/"))).toBe(true);
  });
});
