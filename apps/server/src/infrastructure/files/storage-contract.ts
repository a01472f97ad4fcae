// The behaviour every FileStorage driver owes the app, run against local disk and a real S3-API server
// (local-file-storage.test.ts, s3-file-storage.test.ts). Not a test file itself: each driver's file calls it.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileStorage } from "./file-storage.ts";
import { safeObjectKey } from "./file-storage.ts";

// A full collection before each memory reading, so freed part buffers waiting for the collector do not count.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

export interface StorageUnderTest {
  storage: FileStorage;
  close(): Promise<void>;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Reading a missing object fails, whether the driver rejects at once or its stream errors. */
async function readFails(storage: FileStorage, key: string): Promise<boolean> {
  try {
    await bytesOf(await storage.read("videos", key));
    return false;
  } catch {
    return true;
  }
}

/** `size` bytes made on demand, 64 KB at a time, so the source never holds the file either. */
function generated(size: number, onPull: (sent: number, chunk: Buffer) => void): Readable {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 7);
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(chunk.length, size - sent);
      sent += n;
      const piece = n === chunk.length ? chunk : chunk.subarray(0, n);
      onPull(sent, piece);
      this.push(piece);
    },
  });
}

export function storageContract(name: string, open: () => Promise<StorageUnderTest>) {
  describe(`file storage contract: ${name}`, () => {
    let s: StorageUnderTest;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => s?.close());

    it("puts an object and reads it back whole, with its size, type and an ETag", async () => {
      const body = Buffer.from("hello, حكاية");
      const { size } = await s.storage.put("documents", "terms/en.pdf", Readable.from([body]), "application/pdf");
      expect(size).toBe(body.length);
      const info = await s.storage.stat("documents", "terms/en.pdf");
      expect(info).toMatchObject({ size: body.length, contentType: "application/pdf" });
      expect(info?.etag).toMatch(/^"[^"]+"$/);
      expect(info?.lastModified).toBeInstanceOf(Date);
      expect(await bytesOf(await s.storage.read("documents", "terms/en.pdf"))).toEqual(body);
    });

    it("keeps the content type of a key without an extension (thumbnails are named by story id)", async () => {
      await s.storage.put("thumbnails", "story-1", Readable.from([Buffer.from([0xff, 0xd8, 0xff])]), "image/jpeg");
      expect((await s.storage.stat("thumbnails", "story-1"))?.contentType).toBe("image/jpeg");
    });

    it("reads a byte range, first, middle and last bytes", async () => {
      const body = Buffer.from("0123456789abcdef");
      await s.storage.put("videos", "range.mp4", Readable.from([body]), "video/mp4");
      expect((await bytesOf(await s.storage.read("videos", "range.mp4", { start: 0, end: 1 }))).toString()).toBe("01");
      expect((await bytesOf(await s.storage.read("videos", "range.mp4", { start: 4, end: 9 }))).toString()).toBe("456789");
      expect((await bytesOf(await s.storage.read("videos", "range.mp4", { start: 15, end: 15 }))).toString()).toBe("f");
    });

    it("gives new bytes under the same key a new ETag (what makes If-None-Match and 304 safe)", async () => {
      await s.storage.put("videos", "etag.mp4", Readable.from([Buffer.from("first version")]), "video/mp4");
      const first = await s.storage.stat("videos", "etag.mp4");
      await s.storage.put("videos", "etag.mp4", Readable.from([Buffer.from("second, longer version")]), "video/mp4");
      const second = await s.storage.stat("videos", "etag.mp4");
      expect(second?.etag).not.toBe(first?.etag);
      expect(await s.storage.stat("videos", "etag.mp4")).toEqual(second);
    });

    it("streams a large upload without holding the file in memory", async () => {
      const size = 48 * 1024 * 1024;
      const hash = createHash("sha256");
      let pulled = 0;
      collect();
      const before = process.memoryUsage().arrayBuffers;
      let peak = before;
      const body = generated(size, (sent, chunk) => {
        pulled = sent;
        hash.update(chunk);
        if (sent % (4 * 1024 * 1024) === 0) {
          collect();
          peak = Math.max(peak, process.memoryUsage().arrayBuffers);
        }
      });
      const { size: written } = await s.storage.put("videos", "big/stream.mp4", body, "video/mp4");
      expect(written).toBe(size);
      expect(pulled).toBe(size);
      // A driver that buffered the whole body would need 48 MB; a streaming one holds a part or two.
      expect(peak - before).toBeLessThan(24 * 1024 * 1024);
      const read = createHash("sha256");
      for await (const chunk of await s.storage.read("videos", "big/stream.mp4")) read.update(chunk);
      expect(read.digest("hex")).toBe(hash.digest("hex"));
      expect((await s.storage.stat("videos", "big/stream.mp4"))?.size).toBe(size);
    }, 120_000);

    it("an upload whose source fails leaves no object behind", async () => {
      const failing = new Readable({
        read() {
          this.destroy(new Error("connection reset"));
        },
      });
      await expect(s.storage.put("videos", "broken.mp4", failing, "video/mp4")).rejects.toThrow();
      expect(await s.storage.stat("videos", "broken.mp4")).toBeNull();
    });

    it("deletes an object; deleting a missing one is not an error", async () => {
      await s.storage.put("videos", "gone.mp4", Readable.from([Buffer.from("x")]), "video/mp4");
      await s.storage.delete("videos", "gone.mp4");
      expect(await s.storage.stat("videos", "gone.mp4")).toBeNull();
      await expect(s.storage.delete("videos", "never-there.mp4")).resolves.toBeUndefined();
    });

    it("a missing object has no stat and cannot be read", async () => {
      expect(await s.storage.stat("videos", "missing.mp4")).toBeNull();
      expect(await readFails(s.storage, "missing.mp4")).toBe(true);
    });

    it("keeps buckets apart: the same key in two buckets is two objects", async () => {
      await s.storage.put("videos", "same-key", Readable.from([Buffer.from("video")]), "video/mp4");
      await s.storage.put("recordings", "same-key", Readable.from([Buffer.from("recording")]), "audio/webm");
      expect((await bytesOf(await s.storage.read("videos", "same-key"))).toString()).toBe("video");
      expect((await bytesOf(await s.storage.read("recordings", "same-key"))).toString()).toBe("recording");
    });

    it("refuses keys that try to leave their bucket, before and inside the driver", async () => {
      for (const key of ["../recordings/x", "a/../../b", "/etc/passwd", "a\\b", ".hidden", "a//b", ""]) {
        expect(safeObjectKey(key)).toBeNull();
        await expect(s.storage.put("videos", key, Readable.from([Buffer.from("x")]), "text/plain")).rejects.toThrow(
          /Invalid object key/,
        );
        await expect(s.storage.stat("videos", key)).rejects.toThrow(/Invalid object key/);
      }
      expect(await s.storage.stat("recordings", "x")).toBeNull();
    });
  });
}
