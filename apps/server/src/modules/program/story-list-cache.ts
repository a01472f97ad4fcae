import type { AppDeps } from "../../deps.ts";
import { ByteLru } from "../../infrastructure/cache/byte-lru.ts";
import { onTableChanges } from "../../infrastructure/cache/table-changes.ts";

export const STORY_LIST_CHANNEL = "story_list_changed";
// A quarter of CACHE_MAX_BYTES (16 MB at the default); the shares are listed in config.ts.
export const STORY_LIST_SHARE = 0.25;
// A Map slot and the entry object beyond the key's string and the bytes themselves; generous.
const ENTRY_OVERHEAD_BYTES = 200;
const ROWS_KEY = "\0rows";

/**
 * The story list is read on every home-screen visit and differs between people only by what kind of viewer
 * they are and their furthest watched story. The stories' rows and the serialized answer per key are kept
 * here, bounded in bytes together (the rows count as their JSON size, twice for UTF-16), until a committed
 * write to the stories table on any replica, or until the signed links in the answers roll over.
 */
export class StoryListCache<Row> {
  readonly #entries: ByteLru<string, Buffer | Row[]>;
  #expires = 0;
  // Bumped by every invalidation: an answer built from rows read before one must not be stored.
  #epoch = 0;

  readonly #live: () => boolean;

  /** `live`: false while changes may go unheard (the bus is down): then every answer is built from the database. */
  constructor(maxBytes: number, live: () => boolean = () => true) {
    this.#entries = new ByteLru(maxBytes);
    this.#live = live;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  get maxBytes(): number {
    return this.#entries.maxBytes;
  }

  /** The answer for `key`, built from the rows (read with `load` when not held) when it is not held itself. */
  async answer(key: string, expires: number, load: () => Promise<Row[]>, build: (rows: Row[]) => Buffer): Promise<Buffer> {
    if (!this.#live()) return build(await load());
    if (expires !== this.#expires) {
      this.clear();
      this.#expires = expires;
    }
    const held = this.#entries.get(key);
    if (held instanceof Buffer) return held;
    const epoch = this.#epoch;
    let rows = this.#entries.get(ROWS_KEY) as Row[] | undefined;
    if (!rows) {
      rows = await load();
      if (epoch === this.#epoch) this.#entries.set(ROWS_KEY, rows, ENTRY_OVERHEAD_BYTES + 2 * JSON.stringify(rows).length);
    }
    const json = build(rows);
    if (epoch === this.#epoch) this.#entries.set(key, json, ENTRY_OVERHEAD_BYTES + 2 * key.length + json.byteLength);
    return json;
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }
}

const caches = new WeakMap<object, StoryListCache<unknown>>();

/** Starts the cache for this app's database; the story list reads through it from then on. */
export async function startStoryListCache(
  deps: Pick<AppDeps, "db" | "database" | "bus" | "config">,
): Promise<() => Promise<void>> {
  const cache = new StoryListCache<unknown>(Math.floor(deps.config.cacheMaxBytes * STORY_LIST_SHARE), () => deps.bus.live);
  const stop = await onTableChanges(deps, {
    channel: STORY_LIST_CHANNEL,
    tables: ["stories"],
    onChange: () => cache.clear(),
  });
  caches.set(deps.db, cache);
  return async () => {
    caches.delete(deps.db);
    await stop();
  };
}

export const storyListCacheOf = <Row>(db: object) => caches.get(db) as StoryListCache<Row> | undefined;
