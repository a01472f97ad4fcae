import type { AppDeps } from "../../deps.ts";
import { ByteLru } from "../../infrastructure/cache/byte-lru.ts";
import { onTableChanges } from "../../infrastructure/cache/table-changes.ts";

export const PROGRESS_CHANGED_CHANNEL = "progress_changed";
// An eighth of CACHE_MAX_BYTES (8 MB, about 40k people at the default); the shares are listed in config.ts.
export const LAST_WATCHED_SHARE = 0.125;
// A Map slot, its entry object and the number, beyond the id's UTF-16 string. Generous, so the bound holds.
const ENTRY_OVERHEAD_BYTES = 160;

/**
 * Each person's furthest watched order (the spec's lastWatchedStoryId), read on every story list and story
 * page. Kept in memory until progress or the stories change anywhere: any committed write to either table,
 * on this replica or another, forgets every entry (watching is rare next to reading the list, and a miss is
 * one indexed query), so a watched story unlocks the next one on the very next request on every replica.
 */
export class LastWatchedCache {
  readonly #entries: ByteLru<string, number>;
  readonly #lookup: (userId: string) => Promise<number>;
  // Bumped by every invalidation: a lookup that started before one must not store what it read.
  #epoch = 0;

  constructor(maxBytes: number, lookup: (userId: string) => Promise<number>) {
    this.#entries = new ByteLru(maxBytes);
    this.#lookup = lookup;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  async get(userId: string): Promise<number> {
    const cached = this.#entries.get(userId);
    if (cached !== undefined) return cached;
    const epoch = this.#epoch;
    const value = await this.#lookup(userId);
    if (epoch === this.#epoch) this.#entries.set(userId, value, ENTRY_OVERHEAD_BYTES + 2 * userId.length);
    return value;
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }
}

const caches = new WeakMap<object, LastWatchedCache>();

/** Starts the cache for this app's database; `lastWatchedOrderOf` reads through it from then on. */
export async function startLastWatchedCache(
  deps: Pick<AppDeps, "db" | "database" | "bus" | "config">,
  lookup: (userId: string) => Promise<number>,
): Promise<() => Promise<void>> {
  const cache = new LastWatchedCache(Math.floor(deps.config.cacheMaxBytes * LAST_WATCHED_SHARE), lookup);
  const stop = await onTableChanges(deps, {
    channel: PROGRESS_CHANGED_CHANNEL,
    tables: ["progress", "stories"],
    onChange: () => cache.clear(),
  });
  caches.set(deps.db, cache);
  return async () => {
    caches.delete(deps.db);
    await stop();
  };
}

export const lastWatchedCacheOf = (db: object): LastWatchedCache | undefined => caches.get(db);
