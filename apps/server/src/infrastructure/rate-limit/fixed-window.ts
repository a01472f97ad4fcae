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
  async hit(key: string, { limit, windowSeconds }: WindowLimit): Promise<Refusal | null> {
    const now = this.#now();
    const window = Math.floor(now / 1000 / windowSeconds);
    const expiresAt = new Date((window + 1) * windowSeconds * 1000).toISOString();
    const row = await this.#db
      .insertInto("rate_limits")
      .values({ key: `${key}:${window}`, count: 1, expires_at: expiresAt })
      .onConflict((oc) => oc.column("key").doUpdateSet({ count: sql`rate_limits.count + 1` }))
      .returning("count")
      .executeTakeFirstOrThrow();
    if (++this.#hits % 200 === 0) {
      await this.#db.deleteFrom("rate_limits").where("expires_at", "<", new Date(now).toISOString()).execute();
    }
    if (row.count <= Math.max(1, limit)) return null;
    return { retryAfterSeconds: Math.max(1, (window + 1) * windowSeconds - Math.floor(now / 1000)) };
  }
}
