import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../bus/bus.ts";
import { ByteLru } from "./byte-lru.ts";
import { type Changed, onTableChanges } from "./table-changes.ts";

// A Map slot and the entry object beyond the key's string and the value's own size; generous.
const ENTRY_OVERHEAD_BYTES = 200;

/** The keys a person's entries are held under; by default the person's id alone. */
export type KeysOf = (personId: string) => readonly string[];

/**
 * Values read from the database, per key, kept until a committed write to the tables they come from, on any
 * replica (table-changes.ts): a write that declared its person forgets that person's keys (`keysOf`), any other
 * write every key. Bounded in bytes (`sizeOf` estimates a value), least recently used out.
 */
export class MirrorCache<V> {
  readonly #entries: ByteLru<string, V>;
  readonly #sizeOf: (value: V) => number;
  readonly #live: () => boolean;
  readonly #keysOf: KeysOf;
  // One token per read in flight; forgetting its key drops it: a read that started before a change must not
  // store what it read.
  readonly #reading = new Map<string, object>();

  /** `live`: false while changes may go unheard (the bus is down): then every read goes to the database. */
  constructor(
    maxBytes: number,
    sizeOf: (value: V) => number,
    live: () => boolean = () => true,
    keysOf: KeysOf = (personId) => [personId],
  ) {
    this.#entries = new ByteLru(maxBytes);
    this.#sizeOf = sizeOf;
    this.#live = live;
    this.#keysOf = keysOf;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#live()) return load();
    const held = this.#entries.get(key);
    if (held !== undefined) return held;
    const token = {};
    this.#reading.set(key, token);
    try {
      const value = await load();
      if (this.#reading.get(key) === token && value !== undefined)
        this.#entries.set(key, value, ENTRY_OVERHEAD_BYTES + 2 * key.length + this.#sizeOf(value));
      return value;
    } finally {
      if (this.#reading.get(key) === token) this.#reading.delete(key);
    }
  }

  /** The value held for `key`, without reading: undefined when not held or while changes may go unheard. */
  peek(key: string): V | undefined {
    return this.#live() ? this.#entries.get(key) : undefined;
  }

  /** Forgets one key (a value that has run out by itself, or a person's changed rows). */
  forget(key: string): void {
    this.#entries.delete(key);
    this.#reading.delete(key);
  }

  /** Forgets what changed: the named people's entries, or everything for null. */
  forgetChanged(changed: Changed): void {
    if (!changed) this.clear();
    else for (const personId of changed) for (const key of this.#keysOf(personId)) this.forget(key);
  }

  clear(): void {
    this.#reading.clear();
    this.#entries.clear();
  }
}

/**
 * A MirrorCache of `tables`, kept current on every replica: a change forgets the entries of the people it
 * names, or every entry. `keysOf` lists a person's keys when the cache holds more than one per person.
 */
export async function startMirrorCache<V>(
  deps: { database: DatabaseHandle; bus: MessageBus },
  options: { channel: string; tables: readonly string[]; maxBytes: number; sizeOf: (value: V) => number; keysOf?: KeysOf },
): Promise<{ cache: MirrorCache<V>; stop: () => Promise<void> }> {
  const cache = new MirrorCache<V>(options.maxBytes, options.sizeOf, () => deps.bus.live, options.keysOf);
  const stop = await onTableChanges(deps, {
    channel: options.channel,
    tables: options.tables,
    onChange: (changed) => cache.forgetChanged(changed),
  });
  return { cache, stop };
}
