import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../bus/bus.ts";
import { ByteLru } from "./byte-lru.ts";
import { onTableChanges } from "./table-changes.ts";

// A Map slot and the entry object beyond the key's string and the value's own size; generous.
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * Values read from the database, per key, kept until any committed write to the tables they come from, on any
 * replica (table-changes.ts). Bounded in bytes (`sizeOf` estimates a value), least recently used out.
 */
export class MirrorCache<V> {
  readonly #entries: ByteLru<string, V>;
  readonly #sizeOf: (value: V) => number;
  readonly #live: () => boolean;
  // Bumped by every invalidation: a read that started before one must not store what it read.
  #epoch = 0;

  /** `live`: false while changes may go unheard (the bus is down): then every read goes to the database. */
  constructor(maxBytes: number, sizeOf: (value: V) => number, live: () => boolean = () => true) {
    this.#entries = new ByteLru(maxBytes);
    this.#sizeOf = sizeOf;
    this.#live = live;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#live()) return load();
    const held = this.#entries.get(key);
    if (held !== undefined) return held;
    const epoch = this.#epoch;
    const value = await load();
    if (epoch === this.#epoch && value !== undefined)
      this.#entries.set(key, value, ENTRY_OVERHEAD_BYTES + 2 * key.length + this.#sizeOf(value));
    return value;
  }

  /** Forgets one key (a value that has run out by itself); changes to the tables clear everything. */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }
}

/** A MirrorCache of `tables`, cleared on every replica when one of them changes. */
export async function startMirrorCache<V>(
  deps: { database: DatabaseHandle; bus: MessageBus },
  options: { channel: string; tables: readonly string[]; maxBytes: number; sizeOf: (value: V) => number },
): Promise<{ cache: MirrorCache<V>; stop: () => Promise<void> }> {
  const cache = new MirrorCache<V>(options.maxBytes, options.sizeOf, () => deps.bus.live);
  const stop = await onTableChanges(deps, { channel: options.channel, tables: options.tables, onChange: () => cache.clear() });
  return { cache, stop };
}
