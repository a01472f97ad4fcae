import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type BuildOptions, buildApp } from "../app.ts";
import { type Config, loadConfig } from "../config.ts";
import type { App } from "../deps.ts";
import { PostgresBus } from "../infrastructure/bus/postgres-bus.ts";
import { SESSIONS_ENDED_CHANNEL } from "../modules/auth/live-sessions.ts";

/**
 * A real app on a fresh database for one test file: SQLite in a temporary DATA_DIR by default, or a
 * brand-new PostgreSQL database when TEST_DIALECT=postgres (created from TEST_DATABASE_URL, dropped
 * afterwards). Every server test runs on both through scripts/test.mjs.
 */
export interface TestApp {
  app: App;
  config: Config;
  close(): Promise<void>;
}

export const testDialect = (): "sqlite" | "postgres" => (process.env.TEST_DIALECT === "postgres" ? "postgres" : "sqlite");

export async function createTestDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (testDialect() !== "postgres") return undefined;
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error("TEST_DIALECT=postgres needs TEST_DATABASE_URL");
  const name = `hikaya_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** What a test may give its servers besides configuration: a log stream, a local push service to trust. */
export type TestAppOptions = { logger?: object; push?: BuildOptions["push"] };

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "hikaya-test-"));
  const pgDb = await createTestDatabaseUrl();
  const config = loadConfig({
    DATA_DIR: dataDir,
    SEED_DEMO: "false",
    // No background transcodes a test did not ask for (a test that wants them turns it on).
    MEDIA_PROCESS_DEMO: "false",
    AUTH_SCRYPT_LOG_N: "12", // cheap password hashing in tests; production keeps N=2^17
    LOG_LEVEL: "silent",
    // Every test speaks from 127.0.0.1; tests of the write limits set RATE_LIMIT_FACTOR=1.
    RATE_LIMIT_FACTOR: "100",
    WEB_DIST_DIR: join(dataDir, "no-web"),
    ...(pgDb ? { DATABASE_URL: pgDb.url, STORAGE_DRIVER: "local" } : {}),
    ...env,
  });
  // Silent unless a test reads the log lines (pino options with its own stream).
  const app = await buildApp(config, { logger: options.logger ?? false, push: options.push });
  await app.ready();
  return {
    app,
    config,
    async close() {
      await app.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A second server on the same database and files as `config`, as another replica behind a load balancer would be. */
export async function createReplica(config: Config, options: Pick<TestAppOptions, "push"> = {}): Promise<App> {
  return buildApp(config, { logger: false, push: options.push });
}

/** The test app (replica A, which made the database) and a second server on it, ready (replica B). */
export interface TwoReplicas extends TestApp {
  replica: App;
}

/**
 * Two replicas on one fresh database, as behind a load balancer: what is written through one shows on the other.
 * On PostgreSQL replica B hears of A's writes only through the bus; on SQLite both are in this process on one file.
 * `close()` stops both and drops the database.
 */
/**
 * Waits until every app's bus has heard the others announce themselves (at most 5 s): a process learns its peers
 * a moment after it connects, and a confirmed publish waits only for the peers it knows.
 */
async function knowEachOther(apps: App[]): Promise<void> {
  const buses = apps.map((app) => app.deps.bus).filter((bus): bus is PostgresBus => bus instanceof PostgresBus);
  if (buses.length < 2) return;
  const deadline = Date.now() + 5000;
  while (!buses.every((bus) => bus.listeners(SESSIONS_ENDED_CHANNEL) >= buses.length)) {
    if (Date.now() > deadline) throw new Error("the replicas' buses did not hear each other within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function twoReplicas(
  env: Record<string, string> = {},
  options: Pick<TestAppOptions, "push"> = {},
): Promise<TwoReplicas> {
  const first = await createTestApp(env, options);
  let replica: App | undefined;
  try {
    replica = await createReplica(first.config, options);
    await replica.ready();
    await knowEachOther([first.app, replica]);
  } catch (error) {
    await replica?.close();
    await first.close();
    throw error;
  }
  const b = replica;
  return {
    ...first,
    replica: b,
    async close() {
      await b.close();
      await first.close();
    },
  };
}
