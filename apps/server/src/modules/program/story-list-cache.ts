import type { AppDeps } from "../../deps.ts";
import { Cache } from "../../infrastructure/cache/cache.ts";
import { onTableChanges } from "../../infrastructure/cache/table-changes.ts";
import type { CacheCounter } from "../../infrastructure/metrics/metrics.ts";

export const STORY_LIST_CHANNEL = "story_list_changed";
// 3/16 of CACHE_MAX_BYTES (12 MB at the default, far more than the answers of every kind of viewer); the shares are
// listed in config.ts.
export const STORY_LIST_SHARE = 0.1875;
const ROWS_KEY = "\0rows";

/**
 * The story list is read on every home-screen visit and differs between people only by what kind of viewer
 * they are and their furthest watched story. The stories' rows and the serialized answer per key are kept
 * here, bounded in bytes together (the rows count as their JSON size, twice for UTF-16), until a committed
 * write to the stories table on any replica, or until the signed links in the answers roll over.
 */
export class StoryListCache<Row> {
  readonly #cache: Cache<Buffer | Row[]>;
  #expires = 0;

  /** `live`: false while changes may go unheard (the bus is down): then every answer is built from the database. */
  constructor(maxBytes: number, live: () => boolean = () => true, counter?: CacheCounter) {
    const sizeOf = (held: Buffer | Row[]) => (held instanceof Buffer ? held.byteLength : 2 * JSON.stringify(held).length);
    this.#cache = new Cache({ maxBytes, sizeOf, live, ...(counter && { counter }) });
  }

  get bytes(): number {
    return this.#cache.bytes;
  }

  /** The answer for `key`, built from the rows (read with `load` when not held) when it is not held itself. */
  async answer(key: string, expires: number, load: () => Promise<Row[]>, build: (rows: Row[]) => Buffer): Promise<Buffer> {
    if (expires !== this.#expires) {
      this.#cache.clear();
      this.#expires = expires;
    }
    // Both reads store nothing when a change overlapped them (Cache.read), so neither old rows nor an answer built
    // from them outlive it.
    return (await this.#cache.read(key, async () => build((await this.#cache.read(ROWS_KEY, load)) as Row[]))) as Buffer;
  }

  clear(): void {
    this.#cache.clear();
  }
}

const caches = new WeakMap<object, StoryListCache<unknown>>();

/** Starts the cache for this app's database; the story list reads through it from then on. */
export async function startStoryListCache(
  deps: Pick<AppDeps, "db" | "database" | "bus" | "config" | "metrics">,
): Promise<() => Promise<void>> {
  const cache = new StoryListCache<unknown>(
    Math.floor(deps.config.cacheMaxBytes * STORY_LIST_SHARE),
    () => deps.bus.live,
    deps.metrics.cache("story_list"),
  );
  const stop = await onTableChanges(deps, {
    channel: STORY_LIST_CHANNEL,
    tables: { stories: [] },
    onChange: () => cache.clear(),
  });
  caches.set(deps.db, cache);
  return async () => {
    caches.delete(deps.db);
    await stop();
  };
}

export const storyListCacheOf = <Row>(db: object) => caches.get(db) as StoryListCache<Row> | undefined;
