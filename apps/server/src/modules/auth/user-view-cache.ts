import type { AppDeps } from "../../deps.ts";
import { startTableCache } from "../../infrastructure/cache/cache.ts";
import type { SupabaseUser } from "./user-view.ts";

export const USER_VIEWS_CHANNEL = "auth_user_views";
// A sixteenth of CACHE_MAX_BYTES (4 MB at the default); the shares are listed in config.ts.
export const USER_VIEWS_SHARE = 0.0625;
/**
 * Every table a user object is read from, by its person column: a committed write to any of them, on any replica,
 * forgets the views of the people whose rows it wrote, else every view.
 */
const USER_VIEW_TABLES = { users: ["id"], identities: ["user_id"], mfa_factors: ["user_id"], one_time_tokens: ["user_id"] };

interface HeldView {
  /** Null: no such user (the full path answers). */
  json: Buffer | null;
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
  const { cache, stop } = await startTableCache<HeldView>(deps, {
    channel: USER_VIEWS_CHANNEL,
    tables: USER_VIEW_TABLES,
    maxBytes: Math.floor(deps.config.cacheMaxBytes * USER_VIEWS_SHARE),
    sizeOf: (held) => held.json?.byteLength ?? 0,
  });
  const read = async (userId: string): Promise<HeldView> => {
    const found = await load(userId);
    return found ? { json: Buffer.from(JSON.stringify(found.view)), until: found.until } : { json: null, until: Infinity };
  };

  /**
   * The caller's user object when memory alone has all of it (a token verified before, a session known live, a
   * view held and current), without a promise: the usual page load's answer. Undefined: call userJson.
   */
  function heldJson(token: string): Buffer | undefined {
    const claims = deps.auth.tokens.verifiedClaims(token);
    if (!claims || !deps.auth.sessions.knownActive(claims.session_id)) return undefined;
    const held = cache.get(claims.sub);
    return held?.json && held.until > Date.now() ? held.json : undefined;
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
    let held = await cache.read(userId, () => read(userId));
    if (held.until <= Date.now()) {
      cache.forget(userId);
      held = await cache.read(userId, () => read(userId));
    }
    return held.json;
  }
  return { heldJson, userJson, stop };
}
