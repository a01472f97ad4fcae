import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MessageBus } from "../bus/bus.ts";
import { LocalFileStorage } from "./local-file-storage.ts";
import { CachingFileStorage, REVALIDATE_MS, SMALL_OBJECT_BYTES } from "./memory-cache.ts";

/** Two replicas' buses joined directly: a publish reaches every subscriber before it resolves. */
function sharedBus(): MessageBus {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  return {
    kind: "in-process",
    live: true,
    async publish(channel, payload) {
      for (const l of listeners.get(channel) ?? []) l(payload);
    },
    async subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return async () => void set.delete(listener);
    },
    async close() {},
  };
}

describe("CachingFileStorage (small files from memory)", () => {
  let dir: string;
  let now: number;
  let a: CachingFileStorage;
  let b: CachingFileStorage;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "hikaya-files-"));
    now = 1_000_000;
    const bus = sharedBus();
    // Two replicas on one store.
    a = new CachingFileStorage(new LocalFileStorage(dir), 1_000_000, () => now);
    b = new CachingFileStorage(new LocalFileStorage(dir), 1_000_000, () => now);
    await a.listen(bus);
    await b.listen(bus);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const put = (s: CachingFileStorage, text: string) => s.put("thumbnails", "t1", Readable.from([Buffer.from(text)]), "image/png");

  it("answers from memory, and sees a change made behind its back within REVALIDATE_MS", async () => {
    await put(a, "first");
    expect((await a.held("thumbnails", "t1"))?.bytes?.toString()).toBe("first");
    writeFileSync(join(dir, "thumbnails", "t1"), "changed behind its back");
    expect((await a.held("thumbnails", "t1"))?.bytes?.toString()).toBe("first");
    now += REVALIDATE_MS;
    expect((await a.held("thumbnails", "t1"))?.bytes?.toString()).toBe("changed behind its back");
  });

  it("a file replaced or deleted through one replica is current on the other's very next read", async () => {
    await put(a, "first");
    expect((await b.held("thumbnails", "t1"))?.bytes?.toString()).toBe("first");
    await put(a, "second");
    expect((await b.held("thumbnails", "t1"))?.bytes?.toString()).toBe("second");
    await a.delete("thumbnails", "t1");
    expect(await b.held("thumbnails", "t1")).toBeNull();
  });

  it("holds only the info of large files (they are streamed), and stays within its bytes", async () => {
    await a.put("videos", "big.mp4", Readable.from([Buffer.alloc(SMALL_OBJECT_BYTES + 1)]), "video/mp4");
    const big = await a.held("videos", "big.mp4");
    expect([big?.info.size, big?.bytes]).toEqual([SMALL_OBJECT_BYTES + 1, undefined]);
    const small = new CachingFileStorage(new LocalFileStorage(dir), 200_000, () => now);
    for (let i = 0; i < 20; i++) {
      await small.put("thumbnails", `n${i}`, Readable.from([Buffer.alloc(30_000)]), "image/png");
      expect((await small.held("thumbnails", `n${i}`))?.bytes?.length).toBe(30_000);
      expect(small.bytes).toBeLessThanOrEqual(200_000);
    }
    expect(small.bytes).toBeGreaterThan(150_000);
  });
});
