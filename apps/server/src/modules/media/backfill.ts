import { type Bucket, STORY_MEDIA_BUCKET, UPLOAD_PURPOSES } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { ownerKeyOf } from "../storage/derived-files.ts";
import { listStoredSources } from "../storage/stored-sources.ts";
import { objectOf } from "../storage/story-media.ts";
import { enqueueMedia, mediaKindOf, PROCESSED_AT_UPLOAD } from "./enqueue.ts";
import { findJobs, type MediaKind } from "./media.repository.ts";

const keyOfPath = (path: string) => {
  const object = objectOf(path);
  return object ? `${object.bucket}/${object.key}` : path;
};

/** Public buckets whose uploads are processed where they are (instruction videos, voices). */
const PUBLIC_PROCESSED: readonly Bucket[] = PROCESSED_AT_UPLOAD.map((purpose) => UPLOAD_PURPOSES[purpose].bucket);

export interface Backfill {
  /** Stored files that had no job and got one. */
  enqueued: { bucket: Bucket; key: string; kind: MediaKind }[];
  /** Sources that already had a job (whatever its state). */
  existing: number;
  /** Rows pointing at a file that is not in storage. */
  missing: number;
}

/**
 * `npm run media:process`: a job for every stored video and voice the upload paths would have enqueued but that has
 * none (files stored before processing existed, such as the seeded demo). Story media and the public uploads
 * processed where they are go by the file's type; recordings and voice messages are voices. A source with a job, in
 * any state, is left alone, so running it twice enqueues nothing the second time.
 */
export async function enqueueUnprocessed(
  deps: Pick<AppDeps, "db" | "storage">,
  options: { first?: string[] } = {},
): Promise<Backfill> {
  const sources = new Map<string, { bucket: Bucket; key: string; kind: MediaKind | null }>();
  for (const object of await listStoredSources(deps.db)) {
    if (object.from !== "path") {
      // Recordings and voice messages are voices, whatever their container says.
      sources.set(`${object.bucket}/${object.key}`, { bucket: object.bucket, key: object.key, kind: "audio" });
      continue;
    }
    if (ownerKeyOf(object.key) !== null) continue; // a processed copy, not a source
    if (object.bucket !== STORY_MEDIA_BUCKET && !PUBLIC_PROCESSED.includes(object.bucket)) continue;
    // The kind comes from the stored file's type, read below.
    sources.set(`${object.bucket}/${object.key}`, { bucket: object.bucket, key: object.key, kind: null });
  }

  const result: Backfill = { enqueued: [], existing: 0, missing: 0 };
  // Jobs run oldest first: the addresses in `first` (the stories in order) are enqueued before the rest.
  const rank = new Map((options.first ?? []).map((path, i) => [keyOfPath(path), i] as const));
  const rankOf = (source: { bucket: Bucket; key: string }) => rank.get(`${source.bucket}/${source.key}`) ?? rank.size;
  const all = [...sources.values()].sort((a, b) => rankOf(a) - rankOf(b));
  let lastEnqueued = 0;
  const known = new Set<string>();
  for (let i = 0; i < all.length; i += 100)
    for (const job of await findJobs(deps.db, all.slice(i, i + 100))) known.add(`${job.bucket}/${job.object_key}`);
  for (const source of all) {
    if (known.has(`${source.bucket}/${source.key}`)) {
      result.existing++;
      continue;
    }
    const info = await deps.storage.stat(source.bucket, source.key);
    if (!info) {
      result.missing++;
      continue;
    }
    const kind = source.kind ?? (source.bucket === "audio" ? "audio" : mediaKindOf(info.contentType));
    if (!kind) continue;
    // Jobs are claimed by their millisecond (then a random id): each gets one of its own, so the order holds.
    while (Date.now() <= lastEnqueued) await new Promise((resolve) => setTimeout(resolve, 1));
    await enqueueMedia(deps, { bucket: source.bucket, key: source.key, kind });
    lastEnqueued = Date.now();
    result.enqueued.push({ bucket: source.bucket, key: source.key, kind });
  }
  return result;
}
