import { randomUUID } from "node:crypto";
import { extname } from "node:path";
import {
  type Bucket,
  PUBLIC_BUCKETS,
  type PublicBucket,
  publicObjectPath,
  STORY_MEDIA_BUCKET,
  storyMediaPath,
} from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { safeObjectKey } from "../../infrastructure/files/index.ts";
import { signedQuery } from "./signed-links.ts";
import { isPathReferenced } from "./storage.repository.ts";

/**
 * A story's video, question media and family answers are private until the story is unlocked for the person
 * (spec section 4): rows keep `/storage/v1/object/authenticated/story-media/<random name>`, and whoever may see
 * the story is handed `/storage/v1/object/sign/story-media/<name>?expires=…&signature=…`, a link that works
 * for about an hour without a token (a <video> element cannot send one). Everything else stays public.
 */

export interface StoredObject {
  bucket: Bucket;
  key: string;
}

const STORED_PATH = /^\/storage\/v1\/object\/(public|authenticated|sign)\/([a-z-]+)\/([^?]+)(\?.*)?$/;

/** The stored object an address names, or null for an outside address (YouTube, Vimeo) or a malformed one. */
export function objectOf(path: string | null | undefined): StoredObject | null {
  const match = path ? STORED_PATH.exec(path) : null;
  if (!match) return null;
  const [, kind, bucket, rawKey] = match;
  const key = safeObjectKey(rawKey ?? "");
  if (!key) return null;
  if (kind === "public") return PUBLIC_BUCKETS.includes(bucket as PublicBucket) ? { bucket: bucket as PublicBucket, key } : null;
  return bucket === STORY_MEDIA_BUCKET ? { bucket: STORY_MEDIA_BUCKET, key } : null;
}

export const mediaLinkSubject = (key: string) => `${STORY_MEDIA_BUCKET}/${key}`;

/** The signed link for a story's private media; any other address (public file, YouTube) as it is. */
export function signMedia(deps: Pick<AppDeps, "auth">, path: string, now?: number): string;
export function signMedia(deps: Pick<AppDeps, "auth">, path: string | null, now?: number): string | null;
export function signMedia(deps: Pick<AppDeps, "auth">, path: string | null, now = Date.now()): string | null {
  const object = objectOf(path);
  if (!object || object.bucket !== STORY_MEDIA_BUCKET) return path;
  return `/storage/v1/object/sign/${STORY_MEDIA_BUCKET}/${object.key}?${signedQuery(deps, mediaLinkSubject(object.key), now)}`;
}

/** Every address a row may keep for `object` (before a `?v=` query). */
function addressesOf(object: StoredObject): string[] {
  return object.bucket === STORY_MEDIA_BUCKET
    ? [storyMediaPath(object.key)]
    : (PUBLIC_BUCKETS as readonly string[]).includes(object.bucket)
      ? [publicObjectPath(object.bucket as PublicBucket, object.key)]
      : [];
}

/**
 * What a row keeps for a story's media given by the console: an uploaded public file is copied under a new
 * random name into the private bucket (the upload itself, at its own random name, is left for the storage sweep,
 * so the console can attach it twice); a signed link or reference becomes the reference; an outside address
 * stays as it is. Refuses a file that is not in storage.
 */
export async function privateMediaRef(
  deps: Pick<AppDeps, "storage" | "db" | "fileEvents">,
  path: string,
  field: string,
): Promise<string> {
  const object = objectOf(path);
  if (!object) {
    if (path.startsWith("/storage/")) throw new AppError("validation_failed", `${field}: must be an uploaded file`);
    return path;
  }
  const info = await deps.storage.stat(object.bucket, object.key);
  if (!info) throw new AppError("validation_failed", `${field}: this file is not in storage; upload it again`);
  if (object.bucket === STORY_MEDIA_BUCKET) return storyMediaPath(object.key);
  const key = `${randomUUID()}${extname(object.key).toLowerCase()}`;
  await deps.storage.put(STORY_MEDIA_BUCKET, key, await deps.storage.read(object.bucket, object.key), info.contentType);
  // The private copy is what plays, so it is what gets processed (the media module listens).
  await deps.fileEvents.fileStored({
    bucket: STORY_MEDIA_BUCKET,
    key,
    contentType: info.contentType,
    use: { kind: "story-media", field },
  });
  return storyMediaPath(key);
}

/**
 * Removes the files behind addresses that no row keeps any longer (a replaced upload, a deleted story). Run after
 * the rows changed; a file some row still keeps is never removed. Failures are left for the sweep.
 */
export async function releaseFiles(deps: Pick<AppDeps, "db" | "storage">, paths: (string | null | undefined)[]) {
  const seen = new Set<string>();
  for (const path of paths) {
    const object = objectOf(path);
    if (!object) continue;
    const id = `${object.bucket}/${object.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    try {
      if (await isPathReferenced(deps.db, addressesOf(object))) continue;
      await deps.storage.delete(object.bucket, object.key);
    } catch {
      // The periodic sweep removes what could not be removed now.
    }
  }
}
