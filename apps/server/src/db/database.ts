import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type SQLite from "better-sqlite3";
import { type Dialect, Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import { LRUCache } from "lru-cache";
import type pg from "pg";
import type { Config } from "../config.ts";
import type { DialectName } from "./dialect.ts";
import { MIGRATIONS } from "./migrations/index.ts";
import type { Database } from "./schema.ts";
import { WriteWatch } from "./write-watch.ts";
import type { Reference } from "./written-keys.ts";

export type DB = Kysely<Database>;

export interface DatabaseHandle {
  db: DB;
  dialect: DialectName;
  /** Committed writes to watched tables, for in-process caches (write-watch.ts). */
  writes: WriteWatch;
  /** SQLite's wait for another process's write lock, what migrateToLatest puts back after its longer one. */
  busyTimeoutMs: number;
  close(): Promise<void>;
}

/**
 * Each driver loads only for the database in use (the PostgreSQL one is about 5 % of start-up); both are CommonJS,
 * so a synchronous require keeps openDatabase synchronous.
 */
const load = createRequire(import.meta.url);

/**
 * How long a SQLite statement waits for another process's write lock (a backup, a migration, a second server on
 * the file) before failing busy. better-sqlite3 waits synchronously, so the whole server stalls meanwhile: a
 * request gives up after a second and answers 503 with Retry-After (plugins/error-handler.ts). Migrations and the
 * CLI commands, which stall nobody and have nothing better to do, wait longer.
 */
export const SQLITE_BUSY_TIMEOUT_MS = { request: 1000, command: 5000 } as const;

/** Where the request pool connects (a configuration's `database`, or a bare URL for tests and commands). */
export type DatabaseTarget =
  | { kind: "sqlite"; file: string }
  | Pick<Extract<Config["database"], { kind: "postgres" }>, "kind" | "url">;

export function openDatabase(config: DatabaseTarget, options: { busyTimeoutMs?: number } = {}): DatabaseHandle {
  let dialect: Dialect;
  let name: DialectName;
  const busyTimeoutMs = options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS.request;
  if (config.kind === "postgres") {
    name = "postgres";
    const postgres = load("pg") as typeof pg;
    // PostgreSQL returns int8 (count(*), bigserial) as strings; every such value here fits a JS number.
    postgres.types.setTypeParser(postgres.types.builtins.INT8, (v) => Number.parseInt(v, 10));
    const pool = new postgres.Pool({ connectionString: config.url, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process; the
    // pool replaces it on the next query, and a query in flight fails with its own error.
    pool.on("error", (error) => console.error(`PostgreSQL idle connection lost: ${error.message}`));
    dialect = new PostgresDialect({ pool });
  } else {
    name = "sqlite";
    mkdirSync(dirname(config.file), { recursive: true });
    const SQLiteDatabase = load("better-sqlite3") as typeof SQLite;
    const sqlite = new SQLiteDatabase(config.file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    sqlite.pragma("synchronous = NORMAL");
    dialect = new SqliteDialect({ database: withStatementCache(sqlite) });
  }
  const writes = new WriteWatch();
  const db = new Kysely<Database>({ dialect: writes.wrap(dialect) });
  return { db, dialect: name, writes, busyTimeoutMs, close: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh; on SQLite the prepare costs as much as a small query itself.
 * Statements are reused by their SQL text (the 500 most recently used). A statement still iterating a stream
 * is busy, so that case gets a fresh one.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new LRUCache<string, SQLite.Statement>({ max: STATEMENT_CACHE_SIZE });
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(text);
      if (!cached) cache.set(text, statement);
      return statement;
    },
  };
}

export async function migrateToLatest(handle: DatabaseHandle): Promise<void> {
  // Before any request is served: a migration may outwait another process's lock longer than a request would.
  if (handle.dialect === "sqlite") await sql.raw(`pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS.command}`).execute(handle.db);
  try {
    await migrate(handle);
  } finally {
    if (handle.dialect === "sqlite") await sql.raw(`pragma busy_timeout = ${handle.busyTimeoutMs}`).execute(handle.db);
  }
  handle.writes.learnReferences(await cascadingReferences(handle));
}

async function migrate(handle: DatabaseHandle): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [key, m] of Object.entries(MIGRATIONS)) {
    migrations[key] = { up: (db) => m.up(db, handle.dialect) };
  }
  const run = async (db: DB) => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === "Error");
    if (error || failed) {
      throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
    }
  };
  // Given the database, Kysely takes its migration lock (a session-level advisory lock) before its transaction and
  // releases it after. Through PgBouncer in transaction mode those three may run in different server sessions: the
  // unlock misses, and the lock stays held by a pooled session, so the next replica to start waits for it (an hour).
  // Given a transaction, it locks and unlocks inside it: one session.
  if (handle.dialect === "postgres") await handle.db.transaction().execute(run);
  else await run(handle.db);
}

/** The foreign keys whose rows go (or lose their reference) with the row they reference: what a delete takes along. */
async function cascadingReferences(handle: DatabaseHandle): Promise<Reference[]> {
  const query =
    handle.dialect === "sqlite"
      ? sql<Reference>`select m.name as "table", f."from" as "column", f."table" as "references", f."to" as "to"
          from sqlite_master m join pragma_foreign_key_list(m.name) f
          where m.type = 'table' and f.on_delete in ('CASCADE', 'SET NULL')`
      : sql<Reference>`select c.conrelid::regclass::text as "table", a.attname as "column",
          c.confrelid::regclass::text as "references", r.attname as "to"
          from pg_constraint c
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
          join pg_attribute r on r.attrelid = c.confrelid and r.attnum = c.confkey[1]
          where c.contype = 'f' and c.confdeltype in ('c', 'n') and c.connamespace = 'public'::regnamespace`;
  return (await query.execute(handle.db)).rows.map((r) => ({ ...r, table: r.table.replaceAll('"', "") }));
}
