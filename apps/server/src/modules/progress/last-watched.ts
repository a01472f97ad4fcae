import type { AppDeps } from "../../deps.ts";
import { type Cache, startTableCache } from "../../infrastructure/cache/cache.ts";

export const PROGRESS_CHANGED_CHANNEL = "progress_changed";
// An eighth of CACHE_MAX_BYTES (8 MB, about 40k people at the default); the shares are listed in config.ts.
export const LAST_WATCHED_SHARE = 0.125;

/**
 * Each person's furthest watched order (the spec's lastWatchedStoryId), read on every story list and story
 * page, kept in memory until their progress or the stories change anywhere: a committed watch, on this replica
 * or another, forgets that person's entry (the write's user_id, read from the statement); any other write to
 * either table (a story reordered or deleted) forgets every entry. So a watched story unlocks the next one on the very
 * next request on every replica, and one family's watch costs the others nothing.
 */
const caches = new WeakMap<object, Cache<number>>();

/** Starts the cache for this app's database; `lastWatchedOrderOf` reads through it from then on. */
export async function startLastWatchedCache(
  deps: Pick<AppDeps, "db" | "database" | "bus" | "config">,
): Promise<() => Promise<void>> {
  const { cache, stop } = await startTableCache<number>(deps, {
    channel: PROGRESS_CHANGED_CHANNEL,
    tables: { progress: ["user_id"], stories: [] },
    maxBytes: Math.floor(deps.config.cacheMaxBytes * LAST_WATCHED_SHARE),
    sizeOf: () => 8,
  });
  caches.set(deps.db, cache);
  return async () => {
    caches.delete(deps.db);
    await stop();
  };
}

export const lastWatchedCacheOf = (db: object): Cache<number> | undefined => caches.get(db);
