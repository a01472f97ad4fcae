import type { AppDeps } from "../../deps.ts";
import { type MirrorCache, startMirrorCache } from "../../infrastructure/cache/mirror-cache.ts";

export const PROGRESS_CHANGED_CHANNEL = "progress_changed";
// An eighth of CACHE_MAX_BYTES (8 MB, about 40k people at the default); the shares are listed in config.ts.
export const LAST_WATCHED_SHARE = 0.125;

/**
 * Each person's furthest watched order (the spec's lastWatchedStoryId), read on every story list and story
 * page, kept in memory until progress or the stories change anywhere: any committed write to either table, on
 * this replica or another, forgets every entry (watching is rare next to reading the list, and a miss is one
 * indexed query), so a watched story unlocks the next one on the very next request on every replica.
 */
const caches = new WeakMap<object, MirrorCache<number>>();

/** Starts the cache for this app's database; `lastWatchedOrderOf` reads through it from then on. */
export async function startLastWatchedCache(
  deps: Pick<AppDeps, "db" | "database" | "bus" | "config">,
): Promise<() => Promise<void>> {
  const { cache, stop } = await startMirrorCache<number>(deps, {
    channel: PROGRESS_CHANGED_CHANNEL,
    tables: ["progress", "stories"],
    maxBytes: Math.floor(deps.config.cacheMaxBytes * LAST_WATCHED_SHARE),
    sizeOf: () => 8,
  });
  caches.set(deps.db, cache);
  return async () => {
    caches.delete(deps.db);
    await stop();
  };
}

export const lastWatchedCacheOf = (db: object): MirrorCache<number> | undefined => caches.get(db);
