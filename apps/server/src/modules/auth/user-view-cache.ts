import type { AppDeps } from "../../deps.ts";
import { startMirrorCache } from "../../infrastructure/cache/mirror-cache.ts";
import type { SupabaseUser } from "./user-view.ts";

export const USER_VIEWS_CHANNEL = "auth_user_views";
// A sixteenth of CACHE_MAX_BYTES (4 MB at the default); the shares are listed in config.ts.
export const USER_VIEWS_SHARE = 0.0625;
/**
 * Every table a user object is read from: a committed write to any of them, on any replica, forgets the view of
 * the person it declared (auth.repository), else every view.
 */
const USER_VIEW_TABLES = ["users", "identities", "mfa_factors", "one_time_tokens"];

interface HeldView {
  json: Buffer;
  /** Epoch ms after which the view no longer holds by itself (a pending phone change's code expires). */
  until: number;
}

/**
 * `GET /auth/v1/user` answered from memory: supabase-js asks on every page load and the answer was five queries
 * (session, user, identities, factors, a pending phone change). Only for a caller whose token verifies and whose
 * session is live (both from memory already): anything else takes the full path, with its exact errors.
 */
export async function startUserViewCache(
  deps: Pick<AppDeps, "database" | "bus" | "config" | "auth">,
  load: (userId: string) => Promise<{ view: SupabaseUser; until: number } | null>,
) {
  const { cache, stop } = await startMirrorCache<HeldView | null>(deps, {
    channel: USER_VIEWS_CHANNEL,
    tables: USER_VIEW_TABLES,
    maxBytes: Math.floor(deps.config.cacheMaxBytes * USER_VIEWS_SHARE),
    sizeOf: (held) => held?.json.byteLength ?? 0,
  });
  const read = async (userId: string): Promise<HeldView | null> => {
    const found = await load(userId);
    return found && { json: Buffer.from(JSON.stringify(found.view)), until: found.until };
  };

  /**
   * The caller's user object when memory alone has all of it (a token verified before, a session known live, a
   * view held and current), without a promise: the usual page load's answer. Undefined: call userJson.
   */
  function heldJson(token: string): Buffer | undefined {
    const claims = deps.auth.tokens.verifiedClaims(token);
    if (!claims || !deps.auth.sessions.knownActive(claims.session_id)) return undefined;
    const held = cache.peek(claims.sub);
    return held && held.until > Date.now() ? held.json : undefined;
  }

  /** The caller's user object as JSON bytes, or null when the full path must answer. */
  async function userJson(token: string | null): Promise<Buffer | null> {
    if (!token) return null;
    let userId: string;
    try {
      const claims = await deps.auth.tokens.verify(token);
      if (!(await deps.auth.sessions.isActive(claims.session_id))) return null;
      userId = claims.sub;
    } catch {
      return null;
    }
    let held = await cache.get(userId, () => read(userId));
    if (held && held.until <= Date.now()) {
      cache.forget(userId);
      held = await cache.get(userId, () => read(userId));
    }
    return held?.json ?? null;
  }
  return { heldJson, userJson, stop };
}
