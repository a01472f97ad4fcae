import type { Readable } from "node:stream";
import type { Bucket } from "@hikaya/contracts";
import type { MessageBus } from "../bus/bus.ts";
import { Cache } from "../cache/cache.ts";
import type { CacheCounter } from "../metrics/metrics.ts";
import type { ByteRange, FileStorage, ListedObject, StoredObjectInfo } from "./file-storage.ts";

/** Objects up to this size (thumbnails, character pictures, small audio) are answered from memory. */
export const SMALL_OBJECT_BYTES = 64 * 1024;
export const FILES_CHANGED_CHANNEL = "files_changed";
// 3/16 of CACHE_MAX_BYTES (12 MB at the default); the shares are listed in config.ts.
export const FILES_SHARE = 0.1875;
/**
 * A held object is checked against the store (one stat) at most this often, so a file replaced behind the app's
 * back (an operator copying files in, another program writing the bucket) shows within this time. Changes made
 * through the app, on any replica, show at once.
 */
export const REVALIDATE_MS = 10_000;
// The entry's info and headers beyond the Cache's own estimate of a key; generous.
const ENTRY_OVERHEAD_BYTES = 200;

export interface HeldObject {
  info: StoredObjectInfo;
  /** The object whole when it is small; a large one is streamed from the store. */
  bytes?: Buffer;
  /** `info.lastModified` as the Last-Modified header, formatted once. */
  lastModified: string;
}

interface Entry {
  object: HeldObject;
  checkedAt: number;
}

/**
 * The file store with its small objects held in memory: a thumbnail is answered without a stat, an open and a
 * stream per request, and a large one (a video's Range) without a stat. Bounded in bytes (a share of CACHE_MAX_BYTES). Every write and delete through the app
 * forgets the object here and, through the bus, on every other replica before the write resolves.
 */
export class CachingFileStorage implements FileStorage {
  readonly #inner: FileStorage;
  readonly #entries: Cache<Entry>;
  readonly #now: () => number;
  #bus: MessageBus | null = null;

  constructor(inner: FileStorage, maxBytes: number, now: () => number = () => Date.now(), counter?: CacheCounter) {
    this.#inner = inner;
    this.#entries = new Cache<Entry>({
      maxBytes,
      sizeOf: (entry) => ENTRY_OVERHEAD_BYTES + (entry.object.bytes?.length ?? 0),
      live: () => this.#bus?.live ?? true,
      ...(counter && { counter }),
    });
    this.#now = now;
    if (inner.check) this.check = () => inner.check?.() as Promise<void>;
    if (inner.urlFor) this.urlFor = (bucket, key, seconds) => inner.urlFor?.(bucket, key, seconds) as Promise<string | null>;
    if (inner.removeEmptyFolder)
      this.removeEmptyFolder = (bucket, prefix) => inner.removeEmptyFolder?.(bucket, prefix) as Promise<void>;
  }

  check?: FileStorage["check"];
  removeEmptyFolder?: FileStorage["removeEmptyFolder"];
  urlFor?: FileStorage["urlFor"];

  get bytes(): number {
    return this.#entries.bytes;
  }

  /** Hears about objects changed on other replicas; a gap in the signals forgets everything. */
  async listen(bus: MessageBus): Promise<() => Promise<void>> {
    this.#bus = bus;
    return bus.subscribe(
      FILES_CHANGED_CHANNEL,
      (id) => this.#forget(id),
      () => this.#forget(null),
    );
  }

  async put(bucket: Bucket, key: string, body: Readable, contentType: string) {
    try {
      return await this.#inner.put(bucket, key, body, contentType);
    } finally {
      await this.#changed(bucket, key);
    }
  }

  async delete(bucket: Bucket, key: string) {
    try {
      await this.#inner.delete(bucket, key);
    } finally {
      await this.#changed(bucket, key);
    }
  }

  stat(bucket: Bucket, key: string) {
    return this.#inner.stat(bucket, key);
  }

  read(bucket: Bucket, key: string, range?: ByteRange): Promise<Readable> {
    return this.#inner.read(bucket, key, range);
  }

  list(bucket: Bucket): AsyncIterable<ListedObject> {
    return this.#inner.list(bucket);
  }

  /**
   * What the object is (and its bytes when it is small), from memory while it is fresh; null when there is none;
   * undefined while the bus is down (changes on other replicas may go unheard): then ask the store itself.
   */
  async held(bucket: Bucket, key: string): Promise<HeldObject | null | undefined> {
    if (this.#bus && !this.#bus.live) return undefined;
    // A load that a change overtook must not store what it read.
    const current = this.#entries.begin();
    const id = `${bucket}/${key}`;
    const held = this.#entries.get(id);
    const now = this.#now();
    if (held && now - held.checkedAt < REVALIDATE_MS) return held.object;
    const info = await this.#inner.stat(bucket, key);
    if (!info) {
      this.#entries.forget(id);
      return null;
    }
    if (held && held.object.info.etag === info.etag && held.object.info.size === info.size) {
      held.checkedAt = now;
      return held.object;
    }
    const lastModified = info.lastModified.toUTCString();
    let object: HeldObject = { info, lastModified };
    if (info.size <= SMALL_OBJECT_BYTES) {
      const bytes = await readAll(await this.#inner.read(bucket, key));
      object = { info: { ...info, size: bytes.length }, bytes, lastModified };
      // Replaced while it was read: serve it as read, but let the next request look again.
      if (bytes.length !== info.size) return object;
    }
    if (current()) this.#entries.set(id, { object, checkedAt: now });
    return object;
  }

  async #changed(bucket: Bucket, key: string) {
    const id = `${bucket}/${key}`;
    this.#forget(id);
    await this.#bus?.publish(FILES_CHANGED_CHANNEL, id, { confirm: true });
  }

  #forget(id: string | null) {
    if (id === null) this.#entries.clear();
    else this.#entries.forget(id);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
