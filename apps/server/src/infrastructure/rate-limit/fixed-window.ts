import { sql } from "kysely";
import type { DB } from "../../db/database.ts";

export interface WindowLimit {
  limit: number;
  windowSeconds: number;
}

/** Over the limit: how long until the window ends. */
export interface Refusal {
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters kept in the database (table rate_limits), so every replica counts the same hits.
 * One row per key and window; old windows are swept now and then rather than on a timer.
 */
export class FixedWindowCounter {
  readonly #db: DB;
  readonly #now: () => number;
  #hits = 0;

  constructor(db: DB, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  /** Counts one hit on `key`; returns a refusal once the window's count passes `limit`. */
  hit(key: string, limit: WindowLimit): Promise<Refusal | null> {
    return this.hitEach([{ key, limit }]);
  }

  /**
   * Counts one hit on each key (a request counted per address and per account) in one statement, so every
   * replica still counts exactly the same hits at the cost of one round trip. Refused when any count passes its
   * limit, for as long as the longest of those windows lasts. A key named twice counts once.
   */
  async hitEach(hits: readonly { key: string; limit: WindowLimit }[]): Promise<Refusal | null> {
    const now = this.#now();
    const windows = new Map<string, { limit: number; ends: number }>();
    const rows: { key: string; count: number; expires_at: string }[] = [];
    for (const { key, limit } of hits) {
      const window = Math.floor(now / 1000 / limit.windowSeconds);
      const windowKey = `${key}:${window}`;
      if (windows.has(windowKey)) continue;
      const ends = (window + 1) * limit.windowSeconds;
      windows.set(windowKey, { limit: limit.limit, ends });
      rows.push({ key: windowKey, count: 1, expires_at: new Date(ends * 1000).toISOString() });
    }
    if (rows.length === 0) return null;
    // Rows in key order: two statements upserting the same keys lock them in the same order (PostgreSQL), never
    // each waiting for the other.
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const counted = await this.#db
      .insertInto("rate_limits")
      .values(rows)
      .onConflict((oc) => oc.column("key").doUpdateSet({ count: sql`rate_limits.count + 1` }))
      .returning(["key", "count"])
      .execute();
    if (++this.#hits % 200 === 0) {
      await this.#db.deleteFrom("rate_limits").where("expires_at", "<", new Date(now).toISOString()).execute();
    }
    let retryAfterSeconds = 0;
    for (const row of counted) {
      const window = windows.get(row.key);
      if (!window || row.count <= Math.max(1, window.limit)) continue;
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, window.ends - Math.floor(now / 1000)));
    }
    return retryAfterSeconds > 0 ? { retryAfterSeconds } : null;
  }
}
