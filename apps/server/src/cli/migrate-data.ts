// `npm run migrate-data -- --to postgres://… [--storage s3]`: moves a program that runs on SQLite and
// DATA_DIR to PostgreSQL (and, with --storage s3, its files to the S3 bucket named by S3_BUCKET etc.).
// The source is the running configuration's SQLite database and DATA_DIR; stop the server first.
//
// Safe to re-run after a failure: files are copied (and checked) first, then every table in one
// PostgreSQL transaction, so a failed run leaves the target database empty. A target that already
// holds data is refused before anything is written.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Bucket } from "@hikaya/contracts";
import { type Kysely, sql } from "kysely";
import { ConfigError, loadConfig, loadConfigWith } from "../config.ts";
import { type DatabaseHandle, migrateToLatest, openDatabase, SQLITE_BUSY_TIMEOUT_MS } from "../db/database.ts";
import { createFileStorage } from "../infrastructure/files/index.ts";
import { SECRET_NAME } from "../infrastructure/secrets/index.ts";
import { localFiles, runCli, sha256Of, sha256OfFile } from "./local-files.ts";

const BATCH = 500;

interface Options {
  to: string;
  storage: "local" | "s3";
}

function parseArgs(argv: string[]): Options {
  let to: string | undefined;
  let storage: Options["storage"] = "local";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--to") to = argv[++i];
    else if (arg?.startsWith("--to=")) to = arg.slice(5);
    else if (arg === "--storage") storage = argv[++i] === "s3" ? "s3" : "local";
    else if (arg === "--storage=s3") storage = "s3";
    else throw new ConfigError(`Unknown argument ${arg}. Usage: migrate-data --to postgres://… [--storage s3]`);
  }
  if (!to || !/^postgres(ql)?:\/\//.test(to)) throw new ConfigError("Usage: migrate-data --to postgres://… [--storage s3]");
  return { to, storage };
}

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
const any = (handle: DatabaseHandle) => handle.db as unknown as AnyDb;

/** Kept by the target's own triggers (migration 0031) as the conversations arrive: copied, it would count twice. */
const DERIVED = "inbox_counts";

/** Tables in an order where every table comes after the tables its foreign keys point to. */
async function tablesInOrder(source: DatabaseHandle): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name`.execute(source.db);
  const names = rows.map((r) => r.name);
  const parents = new Map<string, string[]>();
  for (const name of names) {
    const fks = await sql<{ table: string }>`select * from pragma_foreign_key_list(${name})`.execute(source.db);
    parents.set(
      name,
      fks.rows.map((f) => f.table).filter((t) => t !== name),
    );
  }
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, path);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

async function countRows(db: AnyDb, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The first table of the target that already has rows, before anything is written to it. */
async function firstNonEmptyTable(target: DatabaseHandle, tables: string[]): Promise<string | null> {
  const { rows } = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = current_schema()`.execute(target.db);
  const existing = new Set(rows.map((r) => r.table_name));
  // A replica started on the target before the move has made its own keys; the move replaces them. The inbox's
  // counts row exists from the migration on (its triggers count the conversations as they are copied).
  for (const table of tables)
    if (table !== "secrets" && table !== DERIVED && existing.has(table) && (await countRows(any(target), table)) > 0)
      return table;
  return null;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const config = loadConfig();
  if (config.database.kind !== "sqlite")
    throw new ConfigError("migrate-data copies from SQLite: unset DATABASE_URL (or point it at the sqlite: file) to run it");
  await stat(config.database.file).catch(() => {
    throw new ConfigError(`No SQLite database at ${config.database.kind === "sqlite" ? config.database.file : ""}`);
  });
  const target = openDatabase({ kind: "postgres", url: options.to });
  const source = openDatabase(config.database, { busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS.command });
  try {
    await sql`select 1`.execute(target.db).catch((error: Error) => {
      throw new ConfigError(`Cannot reach the target database: ${error.message}`);
    });
    await migrateToLatest(source);
    const tables = await tablesInOrder(source);
    const busy = await firstNonEmptyTable(target, tables);
    if (busy)
      throw new ConfigError(
        `The target database is not empty (table ${busy} has rows): migrate-data copies into an empty database only`,
      );

    // Files first: a failure here leaves the target database untouched.
    const files = { count: 0, bytes: 0, bucket: "" };
    const storageRoot = join(config.dataDir, "storage");
    if (options.storage === "s3") {
      const targetConfig = loadConfigWith({ DATABASE_URL: options.to, STORAGE_DRIVER: "s3" });
      const storage = await createFileStorage(targetConfig.storage);
      if (targetConfig.storage.driver === "s3") files.bucket = targetConfig.storage.bucket;
      const local = await createFileStorage({ driver: "local", root: storageRoot });
      await storage.check?.();
      for await (const file of localFiles(storageRoot)) {
        const bucket = file.bucket as Bucket;
        const info = await local.stat(bucket, file.key);
        if (!info) continue;
        await storage.put(bucket, file.key, await local.read(bucket, file.key), info.contentType);
        const [want, got] = await Promise.all([sha256OfFile(file.path), sha256Of(await storage.read(bucket, file.key))]);
        if (want !== got) throw new Error(`Checksum mismatch after copying ${file.bucket}/${file.key}`);
        files.count++;
        files.bytes += info.size;
      }
    }

    await migrateToLatest(target);
    const counts: Record<string, number> = {};
    await any(target)
      .transaction()
      .execute(async (trx) => {
        for (const table of tables) {
          if (table === DERIVED) continue;
          let copied = 0;
          let after = 0;
          for (;;) {
            const { rows } = await sql<Record<string, unknown>>`select rowid as "__rowid", * from ${sql.table(table)}
              where rowid > ${after} order by rowid limit ${BATCH}`.execute(source.db);
            if (rows.length === 0) break;
            after = Number(rows.at(-1)?.__rowid);
            const values = rows.map(({ __rowid: _, ...row }) => row);
            await trx.insertInto(table).values(values).execute();
            copied += values.length;
          }
          counts[table] = copied;
        }
        // Identity columns continue after the copied ids.
        const { rows: serials } = await sql<{ table_name: string; column_name: string }>`select table_name, column_name
          from information_schema.columns where table_schema = current_schema() and column_default like 'nextval(%'`.execute(trx);
        for (const { table_name: t, column_name: c } of serials) {
          await sql`select setval(pg_get_serial_sequence(${`"${t}"`}, ${c}),
            coalesce((select max(${sql.ref(c)}) from ${sql.table(t)}), 0) + 1, false)`.execute(trx);
        }
        // The SQLite setup keeps its secrets in DATA_DIR/keys; on PostgreSQL they live in the secrets table.
        const keysDir = join(config.dataDir, "keys");
        for (const name of (await readdir(keysDir).catch(() => [])).filter((n) => n.endsWith(".json"))) {
          const secret = name.slice(0, -".json".length);
          if (!SECRET_NAME.test(secret)) continue;
          const value = JSON.stringify(JSON.parse(await readFile(join(keysDir, name), "utf8")));
          const now = new Date().toISOString();
          await trx
            .insertInto("secrets")
            .values({ name: secret, value, created_at: now, updated_at: now })
            .onConflict((oc) => oc.column("name").doUpdateSet({ value, updated_at: now }))
            .execute();
          counts.secrets = (counts.secrets ?? 0) + 1;
        }
      });

    let rows = 0;
    for (const table of tables) {
      const [want, got] = [await countRows(any(source), table), await countRows(any(target), table)];
      if (table !== "secrets" && want !== got)
        throw new Error(`Row count mismatch in ${table}: ${want} in SQLite, ${got} in PostgreSQL`);
      rows += want;
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`Copied ${tables.length} tables, ${rows} rows (row counts match) in ${seconds} s.`);
    console.log(
      options.storage === "s3"
        ? `Copied ${files.count} files, ${(files.bytes / 1e6).toFixed(1)} MB, to S3 bucket ${files.bucket} (checksums match).`
        : `Files stay in ${storageRoot}: start the server on this machine with STORAGE_DRIVER=local, or re-run with --storage s3.`,
    );
    console.log(`Keys: ${counts.secrets ?? 0} secrets moved to the database; tokens issued before stay valid.`);
    console.log('Next: start each replica with this DATABASE_URL (README, "Several replicas").');
  } finally {
    await source.close();
    await target.close();
  }
}

runCli("migrate-data", main);
