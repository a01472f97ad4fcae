import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Bucket } from "@hikaya/contracts";
import {
  type ByteRange,
  contentTypeFor,
  type FileStorage,
  type ListedObject,
  objectKeyOrThrow,
  type StoredObjectInfo,
} from "./file-storage.ts";

const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Files under DATA_DIR/storage/<bucket>/<key>. Writes go to a temporary file in the same directory
 * and are renamed into place, so a crash never leaves half a file under the real name. The content
 * type is kept in a small sidecar so objects whose key has no extension (thumbnails named by story id)
 * are still served with the right type.
 */
export class LocalFileStorage implements FileStorage {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  #path(bucket: Bucket, key: string) {
    return join(this.#root, bucket, objectKeyOrThrow(key));
  }

  async put(bucket: Bucket, key: string, body: Readable, contentType: string) {
    // A source that fails before piping starts (missing file) must reject here, not crash the process.
    body.on("error", () => undefined);
    const target = this.#path(bucket, key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.part`;
    try {
      await pipeline(body, createWriteStream(temp, { flags: "wx" }));
      const { size } = await stat(temp);
      await writeFile(`${temp}.type`, contentType);
      await rename(`${temp}.type`, `${target}.__type`);
      await rename(temp, target);
      return { size };
    } catch (error) {
      await rm(temp, { force: true });
      await rm(`${temp}.type`, { force: true });
      throw error;
    }
  }

  async stat(bucket: Bucket, key: string): Promise<StoredObjectInfo | null> {
    const path = this.#path(bucket, key);
    try {
      const s = await stat(path);
      if (!s.isFile()) return null;
      const contentType = await readFile(`${path}.__type`, "utf8").catch(() => contentTypeFor(key));
      return {
        size: s.size,
        etag: `"${s.size.toString(16)}-${Math.floor(s.mtimeMs).toString(16)}"`,
        lastModified: s.mtime,
        contentType,
      };
    } catch {
      return null;
    }
  }

  async read(bucket: Bucket, key: string, range?: ByteRange): Promise<Readable> {
    // 256 KB reads rather than the default 64 KB: a video's Range costs a quarter of the reads, writes and buffers.
    const highWaterMark = READ_CHUNK_BYTES;
    return createReadStream(
      this.#path(bucket, key),
      range ? { start: range.start, end: range.end, highWaterMark } : { highWaterMark },
    );
  }

  async delete(bucket: Bucket, key: string) {
    const path = this.#path(bucket, key);
    await rm(path, { force: true });
    await rm(`${path}.__type`, { force: true });
  }

  async removeEmptyFolder(bucket: Bucket, prefix: string) {
    // rmdir refuses a folder that is not empty (or is gone), which is the only case to leave alone.
    await rmdir(this.#path(bucket, prefix)).catch(() => undefined);
  }

  async *list(bucket: Bucket): AsyncIterable<ListedObject> {
    const root = join(this.#root, bucket);
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    const files = new Set(entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)));
    for (const path of files) {
      // A content-type sidecar goes with its file; only one whose file is gone is listed (and so swept).
      if (path.endsWith(".__type") && files.has(path.slice(0, -".__type".length))) continue;
      const s = await stat(path).catch(() => null);
      if (s) yield { key: relative(root, path).split(sep).join("/"), lastModified: s.mtime };
    }
  }
}
