import { sql } from "kysely";
import type { DB } from "../../db/database.ts";
import { type AuthError, authErrors } from "./auth-errors.ts";

/**
 * Fixed-window counters kept in the database, so every replica sees the same counts. Each bucket is
 * counted per IP and per account (e-mail or phone); the limits are production values that
 * AUTH_RATE_LIMIT_FACTOR scales.
 */
export const RATE_LIMITS = {
  signInPerIp: { limit: 30, windowSeconds: 300 },
  signInPerAccount: { limit: 10, windowSeconds: 900 },
  signUpPerIp: { limit: 30, windowSeconds: 3600 },
  otpSendPerIp: { limit: 30, windowSeconds: 3600 },
  otpSendPerRecipient: { limit: 5, windowSeconds: 3600 },
  verifyPerIp: { limit: 30, windowSeconds: 300 },
  verifyPerAccount: { limit: 10, windowSeconds: 900 },
  recoverPerIp: { limit: 30, windowSeconds: 3600 },
  refreshPerIp: { limit: 150, windowSeconds: 300 },
  mfaVerifyPerUser: { limit: 15, windowSeconds: 300 },
} as const;

export type RateLimitBucket = keyof typeof RATE_LIMITS;

export class RateLimiter {
  readonly #db: DB;
  readonly #factor: number;
  #hits = 0;

  constructor(db: DB, factor: number) {
    this.#db = db;
    this.#factor = factor;
  }

  /** Counts one hit; throws the given error (default over_request_rate_limit) once over the limit. */
  async hit(bucket: RateLimitBucket, subject: string, error: () => AuthError = authErrors.overRequestLimit): Promise<void> {
    const { limit, windowSeconds } = RATE_LIMITS[bucket];
    const now = Date.now();
    const window = Math.floor(now / 1000 / windowSeconds);
    const key = `${bucket}:${subject}:${window}`;
    const expiresAt = new Date((window + 1) * windowSeconds * 1000).toISOString();
    const row = await this.#db
      .insertInto("rate_limits")
      .values({ key, count: 1, expires_at: expiresAt })
      .onConflict((oc) => oc.column("key").doUpdateSet({ count: sql`rate_limits.count + 1` }))
      .returning("count")
      .executeTakeFirstOrThrow();
    if (++this.#hits % 200 === 0) {
      // Old windows are useless; sweep them now and then rather than on a timer.
      await this.#db.deleteFrom("rate_limits").where("expires_at", "<", new Date(now).toISOString()).execute();
    }
    if (row.count > Math.max(1, Math.round(limit * this.#factor))) {
      const refused = error();
      refused.retryAfterSeconds = Math.max(1, (window + 1) * windowSeconds - Math.floor(now / 1000));
      throw refused;
    }
  }
}
