import type { Config } from "../../config.ts";
import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../../infrastructure/bus/bus.ts";
import type { AppMetrics } from "../../infrastructure/metrics/metrics.ts";
import { hitStoreFor } from "../../infrastructure/rate-limit/fixed-window.ts";
import type { MessageProvider } from "../../infrastructure/sms/index.ts";
import { AccessTokens } from "./access-tokens.ts";
import { AccountDeletionHook } from "./account-deletion.hook.ts";
import { AuthRepository } from "./auth.repository.ts";
import { AuthService } from "./auth.service.ts";
import { LiveSessions } from "./live-sessions.ts";
import { type HashQueueStats, PasswordHasher } from "./password-hasher.ts";
import { PhoneAuthService } from "./phone-auth.service.ts";
import { RateLimiter } from "./rate-limiter.ts";
import type { SigningKeys } from "./signing-keys.ts";

// Live sessions take a quarter of CACHE_MAX_BYTES (about 200k sessions at the default): the rest is for the
// caches of story lists, progress and settings.
export const LIVE_SESSIONS_SHARE = 0.25;
// Verified access tokens' claims a sixteenth (4 MB, a few thousand tokens at the default): a miss costs one
// signature check, not a database round trip.
export const VERIFIED_TOKENS_SHARE = 0.0625;

/** Wires auth for AppDeps.auth: keys, access tokens, the live-session check guards.ts uses, and the service. */
export async function createAuthDeps(
  config: Config,
  database: Pick<DatabaseHandle, "db" | "dialect" | "writes">,
  keys: SigningKeys,
  messages: MessageProvider,
  bus: MessageBus,
  metrics?: AppMetrics,
) {
  const { db } = database;
  // Before any token is verified: a rotation that drops a key must reach this process's token cache.
  await keys.listen(bus);
  // PUBLIC_URL, else the default origin (http://localhost:<PORT>): never the client's Host header, which would let a
  // client choose the issuer its token names.
  const issuer = `${config.publicUrl ?? `http://localhost:${config.port}`}/auth/v1`;
  const tokens = new AccessTokens(keys, issuer, config.auth.jwtExpirySeconds, {
    maxBytes: Math.floor(config.cacheMaxBytes * VERIFIED_TOKENS_SHARE),
    ...(metrics && { counter: metrics.cache("verified_tokens") }),
  });
  const idleDays = config.auth.sessionInactivityDays;
  // The repository and the limiter stay inside the module: its two services share them, nothing else sees them.
  const repo = new AuthRepository(db);
  // Sessions ended by any write, through any code, are forgotten here and on every replica (live-sessions.ts).
  const live = new LiveSessions({
    maxBytes: Math.floor(config.cacheMaxBytes * LIVE_SESSIONS_SHARE),
    lookup: (sessionId) => repo.liveSession(sessionId, idleDays),
    ...(metrics && { counter: metrics.cache("live_sessions") }),
  });
  await live.start({ database, bus });
  const limiter = new RateLimiter(hitStoreFor(database), config.auth.rateLimitFactor);
  const hasher = new PasswordHasher({ logN: config.auth.scryptLogN, queueMax: config.auth.hashQueueMax, metrics });
  const deps = { repo, tokens, messages, limiter, hasher, hmacSecret: keys.hmacSecret, config };
  const service = new AuthService(deps);
  const sessions: Pick<LiveSessions, "isActive" | "knownActive" | "onForget"> = live;
  return {
    keys,
    tokens,
    sessions,
    hasher: hasher as HashQueueStats,
    service,
    phoneAuth: new PhoneAuthService(deps, {
      userAccounts: service.accounts,
      codes: service.codes,
      sessions: service.sessions,
    }),
    accountDeletion: new AccountDeletionHook(),
  };
}
