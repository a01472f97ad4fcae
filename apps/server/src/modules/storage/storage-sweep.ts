import {
  type Bucket,
  PRIVATE_BUCKETS,
  PUBLIC_BUCKETS,
  type PublicBucket,
  publicObjectPath,
  storyMediaPath,
} from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { TEMP_OBJECT } from "../../infrastructure/files/index.ts";
import { ownerKeyOf } from "./derived-files.ts";
import {
  isPathReferenced,
  isRecordingKey,
  isVoiceNoteKey,
  listRecordingKeys,
  listReferencedPaths,
  listVoiceNoteKeys,
} from "./storage.repository.ts";
import { objectOf } from "./story-media.ts";

const HOUR = 3600_000;
/** A file no row points to yet may be an upload in flight (stored, its row not written yet, or a console form still open). */
export const SWEEP_GRACE_MS = 24 * HOUR;
/** A temporary file this old belongs to a write that will never finish. */
export const TEMP_MAX_AGE_MS = 24 * HOUR;

export interface SweepOptions {
  now?: number;
  graceMs?: number;
  tempMaxAgeMs?: number;
}

export interface SweepResult {
  scanned: number;
  removedTemp: number;
  removedOrphans: number;
}

type Deps = Pick<AppDeps, "db" | "storage">;

/** Whether a row points at `bucket/key`, asked again right before removing it (a row may have just been written). */
async function stillReferenced(deps: Deps, bucket: Bucket, key: string): Promise<boolean> {
  if (bucket === "recordings") return isRecordingKey(deps.db, key);
  if (bucket === "voice-notes") return isVoiceNoteKey(deps.db, key);
  const path =
    bucket === "story-media"
      ? storyMediaPath(key)
      : (PUBLIC_BUCKETS as readonly string[]).includes(bucket)
        ? publicObjectPath(bucket as PublicBucket, key)
        : null;
  return path === null || (await isPathReferenced(deps.db, [path]));
}

/**
 * Removes from every bucket the temporary files of writes that never finished (older than a day) and the files
 * no row points to (older than the grace period). A file any row points to is never removed: the set of
 * referenced files is read before listing, and each candidate is checked once more right before it goes.
 * Safe to run on several replicas at once (removing a file twice is harmless).
 */
export async function sweepStorage(deps: Deps, options: SweepOptions = {}): Promise<SweepResult> {
  const now = options.now ?? Date.now();
  const graceMs = options.graceMs ?? SWEEP_GRACE_MS;
  const tempMaxAgeMs = options.tempMaxAgeMs ?? TEMP_MAX_AGE_MS;
  const referenced = new Set<string>();
  for (const path of await listReferencedPaths(deps.db)) {
    const object = objectOf(path);
    if (object) referenced.add(`${object.bucket}/${object.key}`);
  }
  for (const key of await listRecordingKeys(deps.db)) referenced.add(`recordings/${key}`);
  for (const key of await listVoiceNoteKeys(deps.db)) referenced.add(`voice-notes/${key}`);

  const result: SweepResult = { scanned: 0, removedTemp: 0, removedOrphans: 0 };
  for (const bucket of [...PUBLIC_BUCKETS, ...PRIVATE_BUCKETS]) {
    for await (const object of deps.storage.list(bucket)) {
      result.scanned++;
      const age = now - object.lastModified.getTime();
      if (TEMP_OBJECT.test(object.key)) {
        if (age > tempMaxAgeMs) {
          await deps.storage.delete(bucket, object.key);
          result.removedTemp++;
        }
        continue;
      }
      // A processed file (HLS, poster, voice copy under `<key>.media/`) lives as long as its original.
      const owner = ownerKeyOf(object.key) ?? object.key;
      if (age <= graceMs || referenced.has(`${bucket}/${owner}`)) continue;
      if (await stillReferenced(deps, bucket, owner)) continue;
      await deps.storage.delete(bucket, object.key);
      result.removedOrphans++;
    }
  }
  return result;
}
