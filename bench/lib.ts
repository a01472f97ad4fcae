/**
 * Shared pieces of `npm run bench`: start the real app in-process on a temporary DATA_DIR, a bare
 * node:http baseline answering the same bytes, autocannon runs, and the one table of figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import type { App } from "../apps/server/src/deps.ts";

export interface Figure {
  figure: string;
  value: string;
  command: string;
}

export const figures: Figure[] = [];

/** Figures that missed their goal by more than the noise measured: `npm run bench` then exits non-zero. */
export const failures: string[] = [];

export function fail(why: string) {
  failures.push(why);
  console.log(`  MISSED: ${why}`);
}

export function report(figure: string, value: string, command: string) {
  figures.push({ figure, value, command });
  console.log(`  ${figure}: ${value}`);
}

export interface RunningApp {
  app: App;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "hikaya-bench-"));
  // A benchmark is one client hammering writes from one address: the write limits would measure themselves.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    SEED_DEMO: "true",
    RATE_LIMIT_FACTOR: "1000000",
    MEDIA_PROCESS_DEMO: "false",
    ...env,
  });
  const app = await buildApp(config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare node:http server that answers every request with the same status, headers and bytes. */
export async function startBaseline(
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { ...headers, "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  // The load generator runs in a worker thread so it does not share the event loop with the server.
  const result = await autocannon({ connections: 20, duration: 5, workers: 1, ...options });
  const latency = result.latency as unknown as Record<string, number>;
  return {
    requestsPerSecond: result.requests.average,
    p50: latency.p50 ?? 0,
    p95: latency.p97_5 ?? latency.p95 ?? 0,
    p99: latency.p99 ?? 0,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;

export function printTable() {
  console.log("\n| figure | value | command |\n| --- | --- | --- |");
  for (const f of figures) console.log(`| ${f.figure} | ${f.value} | \`${f.command}\` |`);
}
