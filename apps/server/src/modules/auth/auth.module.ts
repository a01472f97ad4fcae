import type { Config } from "../../config.ts";
import type { DB } from "../../db/database.ts";
import type { MessageProvider } from "../../infrastructure/sms/index.ts";
import { AccessTokens } from "./access-tokens.ts";
import { AuthRepository } from "./auth.repository.ts";
import { AuthService } from "./auth.service.ts";
import { RateLimiter } from "./rate-limiter.ts";
import type { SigningKeys } from "./signing-keys.ts";

/** Wires auth for AppDeps.auth: keys, access tokens, the live-session check guards.ts uses, and the service. */
export function createAuthDeps(config: Config, db: DB, keys: SigningKeys, messages: MessageProvider) {
  const tokens = new AccessTokens(keys, `${config.publicUrl ?? ""}/auth/v1`, config.auth.jwtExpirySeconds);
  const service = new AuthService({
    repo: new AuthRepository(db),
    tokens,
    messages,
    limiter: new RateLimiter(db, config.auth.rateLimitFactor),
    hmacSecret: keys.hmacSecret,
    config,
  });
  return {
    keys,
    tokens,
    sessions: { isActive: (sessionId: string) => service.isSessionActive(sessionId) },
    service,
  };
}
