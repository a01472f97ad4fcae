import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestS3, type TestS3 } from "./s3-server.ts";

const MAIN = fileURLToPath(new URL("../main.mjs", import.meta.url));
const RECORDER = fileURLToPath(new URL("./module-recorder.ts", import.meta.url));
/** What start-up must not load unless the configuration uses it; the API docs' generator waits for a docs request. */
const OPTIONAL = ["@aws-sdk/", "/node_modules/pg/", "/web-push/", "/file-type/", "/otpauth/", "/uqr/", "/@fastify/swagger"];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hikaya-lazy-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `node src/main.mjs` until it listens, stops it, and returns the modules it had loaded by then. */
async function modulesOfStart(name: string, env: Record<string, string>): Promise<string[]> {
  const out = join(dir, `${name}.txt`);
  // SQLite in its own DATA_DIR, whichever database the test run itself uses.
  const { DATABASE_URL: _sqlite, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", RECORDER, MAIN], {
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
  await new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("running at")) resolve();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening: ${output}`)));
  });
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
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
