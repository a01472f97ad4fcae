import { type ColumnDefinitionBuilder, type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import { conflict } from "../errors.ts";

/**
 * Everything that differs between SQLite and PostgreSQL lives here, so migrations and repositories
 * stay dialect-neutral.
 */
export type DialectName = "sqlite" | "postgres";

/** An auto-incrementing integer primary key: `integer … autoincrement` or `bigserial`. */
export function autoIncrementType(dialect: DialectName) {
  return dialect === "postgres" ? ("bigserial" as const) : ("integer" as const);
}

export function autoIncrementPrimaryKey(dialect: DialectName) {
  return (col: ColumnDefinitionBuilder) => (dialect === "postgres" ? col.primaryKey() : col.primaryKey().autoIncrement());
}

/** True when an error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** True when an error is a foreign-key violation, in either dialect. */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === "23503" || e?.code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

/**
 * True when a transaction lost a race with another and may simply be tried again: PostgreSQL's deadlock
 * (40P01) and serialization failure (40001), SQLite's busy database (SQLITE_BUSY and its extended codes).
 */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return false;
  return code === "40P01" || code === "40001" || code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_");
}

/**
 * True when the database could not take the lock a statement needed in time: another process holds SQLite's one
 * write lock past the busy timeout (SQLITE_BUSY and its extended codes), or PostgreSQL gave up waiting for a lock
 * (55P03 lock_not_available, when a lock_timeout is set). Nothing was written; the same request may succeed soon.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return false;
  return code === "55P03" || code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_");
}

/**
 * True when a write lost a race with another (a unique place taken, a deadlock, a serialization failure, a busy
 * SQLite file): nothing was half-done, and the caller may answer 409 or try again.
 */
export function isLostRace(error: unknown): boolean {
  return isUniqueViolation(error) || isRetryableTransactionError(error);
}

/** Runs a write; a lost race comes back as 409 `conflict` (never a 500), anything else as it was. */
export async function lostRaceAsConflict<T>(
  work: () => Promise<T>,
  message = "Someone else changed this at the same time; reload and try again",
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isLostRace(error)) throw conflict(message);
    throw error;
  }
}

/** Runs a write up to `attempts` times while it loses races (two admins adding at once), then answers 409. */
export async function retryLostRace<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isLostRace(error)) throw error;
      if (attempt >= attempts) throw conflict("Someone else changed the order at the same time; try again");
    }
  }
}

/**
 * Serialises message inserts into one conversation, so a conversation's ids commit in id order and its own live
 * stream catches up by `id > last` without skipping a row (PostgreSQL hands out sequence values before commit). The
 * first statement of the insert's transaction: the transaction id it takes on its first write then also comes after
 * the previous message's commit, so (tx, id) and id order agree within a conversation. Other conversations are not
 * held up; readers of every conversation follow `runningTransactions`. SQLite has one writer already.
 * `everyConversation` is the design before issue 41 (one lock for the whole database), kept for the scale bench.
 */
export async function lockConversationMessages(
  // biome-ignore lint/suspicious/noExplicitAny: any database schema will do
  trx: Kysely<any>,
  dialect: DialectName,
  conversation: string,
  everyConversation = false,
): Promise<void> {
  if (dialect !== "postgres") return;
  if (everyConversation) await sql`select pg_advisory_xact_lock(7470001)`.execute(trx);
  else await sql`select pg_advisory_xact_lock(7470001, hashtext(${conversation}))`.execute(trx);
}

/**
 * Where rows stop being final, in the statement's own snapshot (PostgreSQL): `ours`, the oldest transaction still
 * running in this database, and `others`, the oldest running in other databases of the cluster (or of ours, having
 * ended since the snapshot was taken). Transaction ids are the cluster's, so a row whose transaction is older than
 * `ours` can only be passed by a later-committing row of another database (never stored here) or of a transaction of
 * ours that has just ended, which a second read sees (modules/messages/CONTEXT.md). One row, nulls when none run;
 * SQLite (one writer) has no such thing: the caller does not ask. Reading `pg_stat_activity` needs the app's one role.
 */
export const runningTransactions = sql<{ ours: string | null; others: string | null }>`select
    min(x8) filter (where xid(x8) = any (a.xids)) as ours,
    min(x8) filter (where not (xid(x8) = any (a.xids))) as others
  from pg_snapshot_xip(pg_current_snapshot()) as x8,
    (select coalesce(array_agg(backend_xid), '{}') as xids from pg_stat_activity
      where datname = current_database() and backend_xid is not null) as a`;

/**
 * A message older than every transaction running anywhere in the cluster (PostgreSQL): nothing can ever commit
 * before it. Always true on SQLite.
 */
export function olderThanEveryTransaction(dialect: DialectName): RawBuilder<SqlBool> {
  return dialect === "postgres" ? sql<SqlBool>`tx < pg_snapshot_xmin(pg_current_snapshot())` : sql<SqlBool>`1 = 1`;
}

/** `(tx, id) > position` or `<= position` in messages' reading order, the transaction id cast as the column's type. */
export function messagePositionCompare(
  dialect: DialectName,
  op: ">" | "<=",
  position: { tx: string; id: number },
): RawBuilder<SqlBool> {
  const tx = dialect === "postgres" ? sql`cast(${position.tx} as xid8)` : sql`${Number(position.tx)}`;
  return sql<SqlBool>`(tx, id) ${sql.raw(op)} (${tx}, ${position.id})`;
}

/** A cheap round trip for the health check. */
// biome-ignore lint/suspicious/noExplicitAny: any database schema will do for `select 1`
export async function ping(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Whether claims may use `FOR UPDATE SKIP LOCKED` (PostgreSQL: replicas claim different rows at once).
 * SQLite has one writer, so a claim inside a transaction is already exclusive.
 */
export function supportsSkipLocked(dialect: DialectName): boolean {
  return dialect === "postgres";
}

/**
 * `lower(column) LIKE lower('%text%')` with the text's own `%`, `_` and `\` taken literally, in both dialects:
 * SQLite has no default escape character and PostgreSQL's LIKE is case-sensitive, so both are spelled out here.
 */
export function likeContains(column: string, text: string) {
  const pattern = `%${likeLiteral(text.toLowerCase())}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/**
 * likeContains's test for callers that know the dialect and search large tables (the inbox reads every text
 * message): any expression, and no lower() around each row. SQLite's LIKE already ignores case (ASCII, as its
 * lower() does), and lower() doubled the time of a scan of 30,000 messages; PostgreSQL gets ILIKE, which the
 * trigram indexes of migration 0013 serve. NULL never matches.
 */
export function containsText(dialect: DialectName, expr: Expression<string | null>, text: string): RawBuilder<SqlBool> {
  const pattern = `%${text.replace(/[\\%_]/g, "\\$&")}%`;
  return dialect === "postgres"
    ? sql<SqlBool>`${expr} ilike ${pattern}` // a backslash is already the default escape; a plain ILIKE can use a trigram index
    : sql<SqlBool>`${expr} like ${pattern} escape '\\'`;
}

/** `column LIKE 'text%'` with the text's wildcards literal: an audit area such as "landing_answer." (its `_` no wildcard). */
export function likeStartsWith(column: string, text: string) {
  return sql<boolean>`${sql.ref(column)} like ${`${likeLiteral(text)}%`} escape '\\'`;
}

const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
