import type { Readable } from "node:stream";
import type { Bucket } from "@hikaya/contracts";

export interface StoredObjectInfo {
  size: number;
  /** Strong validator derived from size and modification time (local) or the store's ETag (S3). */
  etag: string;
  lastModified: Date;
  contentType: string;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * Where files live: the local disk under DATA_DIR by default, an S3-compatible store when several
 * replicas share them. Keys are validated by `safeObjectKey` before they reach a driver.
 */
export interface FileStorage {
  /** Streams `body` to the object; the object appears whole or not at all. Returns the bytes written. */
  put(bucket: Bucket, key: string, body: Readable, contentType: string): Promise<{ size: number }>;
  stat(bucket: Bucket, key: string): Promise<StoredObjectInfo | null>;
  read(bucket: Bucket, key: string, range?: ByteRange): Promise<Readable>;
  delete(bucket: Bucket, key: string): Promise<void>;
  /**
   * Removes a folder its deleted objects left, if it is empty (local disk; an S3 store has no folders, so it has
   * none of this): a deleted account leaves no folder named after it.
   */
  removeEmptyFolder?(bucket: Bucket, prefix: string): Promise<void>;
  /** Start-up check that the store can be used (S3: the bucket exists and lets us in). Throws one line. */
  check?(): Promise<void>;
  /**
   * A store that holds what it knows of objects in memory (memory-cache.ts): the object's info and Last-Modified
   * header, with its bytes when it is small; null when there is none; undefined when it cannot say (stat it).
   */
  held?(
    bucket: Bucket,
    key: string,
  ): Promise<{ info: StoredObjectInfo; bytes?: Buffer; lastModified: string } | null | undefined>;
  /** With redirect delivery, an address a browser may fetch the object from itself; null: stream it. */
  urlFor?(bucket: Bucket, key: string, expiresInSeconds: number): Promise<string | null>;
  /**
   * Every object of a bucket, for the storage sweep; on local disk also the `.part` files an interrupted write
   * left behind (named `<key>.<uuid>.part`). Order is unspecified.
   */
  list(bucket: Bucket): AsyncIterable<ListedObject>;
}

export interface ListedObject {
  key: string;
  lastModified: Date;
}

/** A temporary file of an interrupted write (local disk): `<key>.<uuid>.part` and its `.part.type` sidecar. */
export const TEMP_OBJECT = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.part(\.type)?$/;

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Accepts `a/b/c.ext` made of plain segments only: no `..`, no leading dot, no backslashes, no
 * empty segments. Returns null for anything else, so a path can never leave its bucket.
 */
export function safeObjectKey(key: string): string | null {
  if (key.length === 0 || key.length > 512) return null;
  const segments = key.split("/");
  return segments.every((s) => SEGMENT.test(s) && s !== "." && s !== "..") ? key : null;
}

/** Drivers check again, so no caller that forgot `safeObjectKey` can reach outside a bucket. */
export function objectKeyOrThrow(key: string): string {
  const safe = safeObjectKey(key);
  if (safe === null) throw new Error(`Invalid object key: ${JSON.stringify(key)}`);
  return safe;
}

const CONTENT_TYPES: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  m4a: "audio/mp4",
  aac: "audio/aac",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  json: "application/json",
};

export function contentTypeFor(key: string, fallback = "application/octet-stream"): string {
  const ext = key.split(".").pop()?.toLowerCase() ?? "";
  return CONTENT_TYPES[ext] ?? fallback;
}

/**
 * Removes the folders that deleting `keys` emptied, deepest first (local disk; S3 has none), so no folder stays
 * named after what was deleted (a person's id). A folder still holding something is left.
 */
export async function removeEmptiedFolders(storage: FileStorage, objects: { bucket: Bucket; key: string }[]): Promise<void> {
  if (!storage.removeEmptyFolder) return;
  const folders = new Map<string, { bucket: Bucket; prefix: string; depth: number }>();
  for (const { bucket, key } of objects) {
    const parts = key.split("/").slice(0, -1);
    for (let depth = parts.length; depth > 0; depth--) {
      const prefix = parts.slice(0, depth).join("/");
      folders.set(`${bucket}/${prefix}`, { bucket, prefix, depth });
    }
  }
  for (const { bucket, prefix } of [...folders.values()].sort((a, b) => b.depth - a.depth))
    await storage.removeEmptyFolder(bucket, prefix).catch(() => undefined);
}
