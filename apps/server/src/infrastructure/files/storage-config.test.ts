import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config.ts";

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL("../../main.mjs", import.meta.url));
const PG = "postgres://nobody@127.0.0.1:1/none";

describe("file storage with PostgreSQL", () => {
  it("starting on PostgreSQL without choosing a file storage stops with one line saying why", async () => {
    expect(() => loadConfig({ DATABASE_URL: PG })).toThrow(
      /^Invalid configuration: STORAGE_DRIVER must be set with PostgreSQL: s3 for several replicas/,
    );
    const { STORAGE_DRIVER: _unset, ...env } = process.env;
    const started = run(process.execPath, [MAIN], { env: { ...env, DATABASE_URL: PG } });
    const failure = await started.then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr.trim().split("\n")).toHaveLength(1);
    expect(failure?.stderr).toContain("STORAGE_DRIVER must be set with PostgreSQL");
  });

  it("a single PostgreSQL server keeping files on its own disk says so with STORAGE_DRIVER=local", () => {
    expect(loadConfig({ DATABASE_URL: PG, STORAGE_DRIVER: "local" }).storage.driver).toBe("local");
    expect(loadConfig({}).storage.driver).toBe("local");
  });

  it("S3 delivery: proxied by default, redirected when asked, with an optional public address", () => {
    const base = { DATABASE_URL: PG, STORAGE_DRIVER: "s3", S3_BUCKET: "media" };
    expect(loadConfig(base).storage).toMatchObject({ driver: "s3", delivery: "proxy", publicUrl: undefined });
    expect(
      loadConfig({ ...base, STORAGE_DELIVERY: "redirect", STORAGE_PUBLIC_URL: "https://cdn.example.org" }).storage,
    ).toMatchObject({ delivery: "redirect", publicUrl: "https://cdn.example.org" });
    expect(() => loadConfig({ ...base, STORAGE_DELIVERY: "teleport" })).toThrow(/^Invalid configuration: STORAGE_DELIVERY/);
  });
});
