import { FixedWindowCounter, type HitStore } from "../../infrastructure/rate-limit/fixed-window.ts";
import { type AuthError, authErrors } from "./auth-errors.ts";

/**
 * Fixed-window counters in the database (rate_limits), on both dialects: every window here is longer than the
 * minute SQLite keeps in memory (fixed-window.ts SqliteHits), so a locked account stays locked across a restart,
 * and on PostgreSQL every replica sees the same counts. Each bucket is counted per IP and per account (e-mail or
 * phone); the limits are production values that AUTH_RATE_LIMIT_FACTOR scales.
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
  readonly #counter: FixedWindowCounter;
  readonly #factor: number;

  constructor(hits: HitStore, factor: number) {
    this.#counter = new FixedWindowCounter(hits);
    this.#factor = factor;
  }

  /** Counts one hit; throws the given error (default over_request_rate_limit) once over the limit. */
  async hit(bucket: RateLimitBucket, subject: string, error: () => AuthError = authErrors.overRequestLimit): Promise<void> {
    const { limit, windowSeconds } = RATE_LIMITS[bucket];
    const refusal = await this.#counter.hit(`${bucket}:${subject}`, { limit: Math.round(limit * this.#factor), windowSeconds });
    if (refusal) {
      const refused = error();
      refused.retryAfterSeconds = refusal.retryAfterSeconds;
      throw refused;
    }
  }
}
