import { LRUCache } from "lru-cache";
import type { DatabaseHandle } from "../../db/database.ts";
import type { Watched } from "../../db/write-watch.ts";
import type { MessageBus } from "../bus/bus.ts";
import type { AppMetrics, CacheCounter } from "../metrics/metrics.ts";
import { type Changed, onTableChanges } from "./table-changes.ts";

// The entry's bookkeeping beyond its key's characters and the value's own size (lru-cache's slots, the key
// string's header); generous, so that the bound is an upper bound.
const ENTRY_OVERHEAD_BYTES = 200;

export interface CacheOptions<V> {
  /** The cache's share of CACHE_MAX_BYTES; 0 holds nothing (every read loads). */
  maxBytes: number;
  /** An estimate of the memory a value holds, in bytes. */
  sizeOf: (value: V, key: string) => number;
  /** False while changes may go unheard (the bus is down): then every read loads and nothing is held. */
  live?: () => boolean;
  /** Told of every entry that leaves (forgotten, evicted, replaced), for an index kept beside the cache. */
  onRemove?: (value: V, key: string) => void;
  /** Told each read's outcome, for /metrics (AppMetrics.cache(name)). */
  counter?: CacheCounter;
}

/**
 * The server's one in-memory cache: string keys, bounded in bytes, least recently used out (lru-cache), and
 * read-through without ever keeping a stale read: a load that overlapped a forget of its key (or a clear) answers
 * what it read but stores nothing.
 */
export class Cache<V extends {}> {
  readonly #lru: LRUCache<string, V> | null;
  readonly #live: () => boolean;
  readonly #counter: CacheCounter | undefined;
  // One token per load in flight; forgetting its key (or clearing) drops it, and the load then stores nothing.
  readonly #loading = new Map<string, object>();

  constructor(options: CacheOptions<V>) {
    const { maxBytes, sizeOf, onRemove } = options;
    this.#live = options.live ?? (() => true);
    this.#counter = options.counter;
    // lru-cache refuses a zero bound: a cache of no bytes is no cache at all.
    this.#lru =
      maxBytes > 0
        ? new LRUCache<string, V>({
            maxSize: maxBytes,
            sizeCalculation: (value, key) => Math.max(1, ENTRY_OVERHEAD_BYTES + 2 * key.length + sizeOf(value, key)),
            ...(onRemove && { dispose: (value: V, key: string) => onRemove(value, key) }),
          })
        : null;
  }

  get bytes(): number {
    return this.#lru?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }

  /** The value held for `key` (now the most recently used): undefined when not held or while not live. */
  get(key: string): V | undefined {
    const held = this.#live() ? this.#lru?.get(key) : undefined;
    if (held === undefined) this.#counter?.miss();
    else this.#counter?.hit();
    return held;
  }

  /** Holds `value` unless it alone is over the bound (lru-cache then refuses it) or the cache is not live. */
  set(key: string, value: V): void {
    if (this.#live()) this.#lru?.set(key, value);
  }

  /** The value for `key`, held or loaded and held (unless a forget overlapped the load). */
  async read(key: string, load: () => Promise<V>): Promise<V> {
    const held = this.get(key);
    if (held !== undefined) return held;
    if (!this.#lru || !this.#live()) return load();
    const token = {};
    this.#loading.set(key, token);
    try {
      const value = await load();
      if (this.#loading.get(key) === token) this.#lru.set(key, value);
      return value;
    } finally {
      if (this.#loading.get(key) === token) this.#loading.delete(key);
    }
  }

  /** Starts a load of several keys' worth (a batch the caller stores itself): `current()` is false once any forget ran. */
  begin(): () => boolean {
    const epoch = this.#epoch;
    return () => epoch === this.#epoch;
  }
  #epoch = 0;

  forget(key: string): void {
    this.#epoch++;
    this.#loading.delete(key);
    this.#lru?.delete(key);
  }

  clear(): void {
    this.#epoch++;
    this.#loading.clear();
    this.#lru?.clear();
  }

  /** Forgets the keys of what changed (`keysOf` each named key), or everything for null. */
  forgetChanged(changed: Changed, keysOf: (key: string) => readonly string[] = (key) => [key]): void {
    if (!changed) this.clear();
    else for (const name of changed) for (const key of keysOf(name)) this.forget(key);
  }
}

/**
 * A Cache of values read from `tables`, kept current on every replica (table-changes.ts): a committed write
 * forgets the entries of the keys it wrote (`keysOf` lists the cache keys of one written key, by default itself),
 * a write whose keys cannot be told forgets everything.
 */
export async function startTableCache<V extends {}>(
  deps: { database: Pick<DatabaseHandle, "writes">; bus: MessageBus; metrics?: AppMetrics },
  options: Omit<CacheOptions<V>, "live"> & {
    channel: string;
    tables: Watched;
    keysOf?: (key: string) => readonly string[];
  },
): Promise<{ cache: Cache<V>; stop: () => Promise<void> }> {
  // Named by its channel in /metrics.
  const counter = deps.metrics?.cache(options.channel);
  const cache = new Cache<V>({ ...options, live: () => deps.bus.live, ...(counter && { counter }) });
  const stop = await onTableChanges(deps, {
    channel: options.channel,
    tables: options.tables,
    onChange: (changed) => cache.forgetChanged(changed, options.keysOf),
  });
  return { cache, stop };
}
