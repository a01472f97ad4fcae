import { type Kysely, sql } from "kysely";
import type { DatabaseHandle, DB } from "../../db/database.ts";
import { prepared } from "../../db/prepared.ts";
import type { Database } from "../../db/schema.ts";
import { Cache } from "../cache/cache.ts";

export interface WindowLimit {
  limit: number;
  windowSeconds: number;
}

/** Over the limit: how long until the window ends. */
export interface Refusal {
  retryAfterSeconds: number;
}

type HitRow = { key: string; count: number; expires_at: string };

const upsertHits = (db: Kysely<Database>, rows: HitRow[]) =>
  db
    .insertInto("rate_limits")
    .values(rows)
    .onConflict((oc) => oc.column("key").doUpdateSet({ count: sql`rate_limits.count + 1` }))
    .returning(["key", "count"]);

/** A request's one or two counts (address, account), compiled once (db/prepared.ts): every write request runs one. */
const upsertOne = prepared(["key0", "expires0"], (db, v: { key0: string; expires0: string }) =>
  upsertHits(db, [{ key: v.key0, count: 1, expires_at: v.expires0 }]),
);
const upsertTwo = prepared(
  ["key0", "expires0", "key1", "expires1"],
  (db, v: { key0: string; expires0: string; key1: string; expires1: string }) =>
    upsertHits(db, [
      { key: v.key0, count: 1, expires_at: v.expires0 },
      { key: v.key1, count: 1, expires_at: v.expires1 },
    ]),
);

type Counted = { key: string; count: number };

/** One hit to count: a key with its window in it, when that window ends (epoch seconds) and how long it lasts. */
export type Hit = { key: string; ends: number; seconds: number };

/** Where hits are counted: one more on each hit's key, and the counts after. */
export interface HitStore {
  count(hits: readonly Hit[], now: number): Promise<readonly Counted[]>;
}

/**
 * In the database (table rate_limits), so every replica counts the same hits: one row per key and window; old
 * windows are swept now and then rather than on a timer.
 */
export class DatabaseHits implements HitStore {
  readonly #db: DB;
  #hits = 0;

  constructor(db: DB) {
    this.#db = db;
  }

  async count(hits: readonly Hit[], now: number): Promise<readonly Counted[]> {
    // Rows in key order: two statements upserting the same keys lock them in the same order (PostgreSQL), never
    // each waiting for the other.
    const rows = hits
      .map((h) => ({ key: h.key, count: 1, expires_at: new Date(h.ends * 1000).toISOString() }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const counted = await this.#upsert(rows);
    if (++this.#hits % 200 === 0) {
      await this.#db.deleteFrom("rate_limits").where("expires_at", "<", new Date(now).toISOString()).execute();
    }
    return counted;
  }

  async #upsert(rows: readonly HitRow[]): Promise<readonly Counted[]> {
    const db = this.#db;
    const [first, second] = rows;
    if (rows.length === 1 && first) return (await upsertOne.execute(db, { key0: first.key, expires0: first.expires_at })).rows;
    if (rows.length === 2 && first && second)
      return (
        await upsertTwo.execute(db, {
          key0: first.key,
          expires0: first.expires_at,
          key1: second.key,
          expires1: second.expires_at,
        })
      ).rows;
    return upsertHits(db, [...rows]).execute();
  }
}

/** What MemoryHits may hold (about 80,000 keys): counts are not a cache, so they are not CACHE_MAX_BYTES' to share. */
export const MEMORY_HITS_MAX_BYTES = 8 * 1024 * 1024;

/**
 * In this process's memory, for a database only this process serves (SQLite: its bus and caches are in-process
 * too): every write request is then spared a commit of its own. A restart starts every window afresh, which is why
 * SQLite keeps only windows of a minute here (SqliteHits). Bounded in bytes; keys of past windows are never hit
 * again and age out first, and the least recently hit key goes before a key being hammered.
 */
export class MemoryHits implements HitStore {
  readonly #counts: Cache<number>;

  constructor(maxBytes = MEMORY_HITS_MAX_BYTES) {
    this.#counts = new Cache({ maxBytes, sizeOf: () => 8 });
  }

  async count(hits: readonly Hit[]): Promise<readonly Counted[]> {
    return hits.map(({ key }) => {
      const count = (this.#counts.get(key) ?? 0) + 1;
      this.#counts.set(key, count);
      return { key, count };
    });
  }
}

/** The longest window SQLite counts in memory: what a restart may forget costs at most this much of a limit. */
export const MEMORY_WINDOW_MAX_SECONDS = 60;

/**
 * SQLite's one server: windows of a minute (the live chat's and the other frequent writes' limits, where a commit
 * of its own per request would cost) in memory; longer ones (an account locked by password guessing, hourly
 * limits) in the rate_limits table, so a restart does not give a guesser a fresh window.
 */
export class SqliteHits implements HitStore {
  readonly #memory: MemoryHits;
  readonly #database: DatabaseHits;

  constructor(db: DB, memory = new MemoryHits()) {
    this.#memory = memory;
    this.#database = new DatabaseHits(db);
  }

  async count(hits: readonly Hit[], now: number): Promise<readonly Counted[]> {
    const short = hits.filter((h) => h.seconds <= MEMORY_WINDOW_MAX_SECONDS);
    if (short.length === hits.length) return this.#memory.count(hits);
    const long = hits.filter((h) => h.seconds > MEMORY_WINDOW_MAX_SECONDS);
    const [counted, inMemory] = await Promise.all([this.#database.count(long, now), this.#memory.count(short)]);
    return [...counted, ...inMemory];
  }
}

/**
 * Where a database's hits are counted: on SQLite (one server process) a minute's windows in memory and longer ones
 * in the database; on PostgreSQL all in the database, for every replica.
 */
export const hitStoreFor = (database: Pick<DatabaseHandle, "db" | "dialect">): HitStore =>
  database.dialect === "sqlite" ? new SqliteHits(database.db) : new DatabaseHits(database.db);

/** Fixed-window counters: a count per key and window, in a HitStore. */
export class FixedWindowCounter {
  readonly #store: HitStore;
  readonly #now: () => number;

  constructor(store: HitStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Counts one hit on `key`; returns a refusal once the window's count passes `limit`. */
  hit(key: string, limit: WindowLimit): Promise<Refusal | null> {
    return this.hitEach([{ key, limit }]);
  }

  /**
   * Counts one hit on each key (a request counted per address and per account) at once: in the database, one
   * statement, so every replica still counts exactly the same hits at the cost of one round trip. Refused when any
   * count passes its limit, for as long as the longest of those windows lasts. A key named twice counts once.
   */
  async hitEach(hits: readonly { key: string; limit: WindowLimit }[]): Promise<Refusal | null> {
    const now = this.#now();
    const windows = new Map<string, { limit: number; ends: number; seconds: number }>();
    for (const { key, limit } of hits) {
      const window = Math.floor(now / 1000 / limit.windowSeconds);
      const windowKey = `${key}:${window}`;
      if (!windows.has(windowKey))
        windows.set(windowKey, { limit: limit.limit, ends: (window + 1) * limit.windowSeconds, seconds: limit.windowSeconds });
    }
    if (windows.size === 0) return null;
    const counted = await this.#store.count(
      [...windows].map(([key, { ends, seconds }]) => ({ key, ends, seconds })),
      now,
    );
    let retryAfterSeconds = 0;
    for (const row of counted) {
      const window = windows.get(row.key);
      if (!window || row.count <= Math.max(1, window.limit)) continue;
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, window.ends - Math.floor(now / 1000)));
    }
    return retryAfterSeconds > 0 ? { retryAfterSeconds } : null;
  }
}
