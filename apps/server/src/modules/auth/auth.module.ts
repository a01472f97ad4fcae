import type { Config } from "../../config.ts";
import type { DB } from "../../db/database.ts";
import type { MessageProvider } from "../../infrastructure/sms/index.ts";
import { AccessTokens } from "./access-tokens.ts";
import { AccountService } from "./account.service.ts";
import { AuthRepository } from "./auth.repository.ts";
import { AuthService } from "./auth.service.ts";
import { RateLimiter } from "./rate-limiter.ts";
import type { SigningKeys } from "./signing-keys.ts";

/** Wires auth for AppDeps.auth: keys, access tokens, the live-session check guards.ts uses, and the service. */
export function createAuthDeps(config: Config, db: DB, keys: SigningKeys, messages: MessageProvider) {
  const issuer = config.publicUrl ? `${config.publicUrl}/auth/v1` : null;
  const tokens = new AccessTokens(keys, issuer, config.auth.jwtExpirySeconds);
  // The repository and the limiter stay inside the module: its two services share them, nothing else sees them.
  const repo = new AuthRepository(db);
  const limiter = new RateLimiter(db, config.auth.rateLimitFactor);
  const deps = { repo, tokens, messages, limiter, hmacSecret: keys.hmacSecret, config };
  const service = new AuthService(deps);
  return {
    keys,
    tokens,
    sessions: { isActive: (sessionId: string) => service.isSessionActive(sessionId) },
    service,
    accounts: new AccountService(deps, { accounts: service.accounts, codes: service.codes }),
  };
}
