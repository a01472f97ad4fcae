import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { type Bucket, type MediaJobState, type MediaStream, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { removeEmptiedFolders } from "../../infrastructure/files/file-storage.ts";
import { derivedPrefix } from "../storage/derived-files.ts";
import { COOKIE_MEDIA_ROOT } from "../storage/media-cookies.ts";
import { objectOf } from "../storage/story-media.ts";
import { captionsOf } from "./captions.ts";
import { VOICE_FILE, voiceCopyKey } from "./enqueue.ts";
import { loadBinaries, MediaJobFailure, probe } from "./ffmpeg.ts";
import { deleteJobs, findJobs, type MediaJobRow } from "./media.repository.ts";
import { AUDIO_ONLY, checkInput, filesUnder, type ModeSizes, normaliseVoice, transcodeVideo } from "./transcode.ts";

/** What a finished job recorded: keys in the source's bucket. */
export interface MediaOutputs {
  hls?: string;
  poster?: string;
  audio?: string;
  renditions?: number[];
  /** The audio-only variant's playlist (a video with sound, processed since issue 38). */
  audioOnly?: string;
  /** Bytes each viewing mode costs (issue 38). */
  sizes?: ModeSizes;
  durationSeconds: number;
}

const CONTENT_TYPES: Record<string, string> = {
  m3u8: "application/vnd.apple.mpegurl",
  ts: "video/mp2t",
  jpg: "image/jpeg",
  m4a: "audio/mp4",
};

/** Playlists last: a master playlist is never in storage before the files it names. */
const uploadOrder = (path: string) => (path.endsWith("master.m3u8") ? 2 : path.endsWith(".m3u8") ? 1 : 0);

/** Each job works in a folder of its own under the system's temporary folder. */
const WORK_PREFIX = "hikaya-media-";

/**
 * Removes the work folders of jobs whose server died mid-way (kill -9, a crash): nothing else would, and each holds a
 * copy of an upload (up to 1 GB). Only folders untouched for `olderThanMs`, the time limit no job outlives, so a
 * replica sharing this machine keeps the folder of a job it is still running. Returns how many went.
 */
export async function removeAbandonedWork(olderThanMs: number, now = Date.now(), dir = tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(WORK_PREFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || now - info.mtimeMs < olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

export interface ProcessOptions {
  signal: AbortSignal;
  threads: number;
  onProgress: (fraction: number) => void;
}

/**
 * Processes one claimed job: the original is copied to a temporary folder (it may live on S3), probed, checked,
 * converted, and the results stored beside it under `<key>.media/`. The original is left as it is, so it plays
 * until the job is recorded ready. Throws `MediaJobFailure` with the reason for a file that cannot be processed.
 */
export async function processJob(
  deps: Pick<AppDeps, "storage">,
  job: Pick<MediaJobRow, "bucket" | "object_key" | "kind">,
  options: ProcessOptions,
): Promise<MediaOutputs> {
  const bucket = job.bucket as Bucket;
  if (!(await deps.storage.stat(bucket, job.object_key)))
    throw new MediaJobFailure("missing", "The original file is no longer in storage");
  const bins = await loadBinaries();
  const work = await mkdtemp(join(tmpdir(), WORK_PREFIX));
  try {
    const input = join(work, "source");
    await pipeline(await deps.storage.read(bucket, job.object_key), createWriteStream(input), { signal: options.signal });
    const info = await probe(bins, input, options.signal);
    checkInput(job.kind, info);
    const out = join(work, "out");
    const prefix = derivedPrefix(job.object_key);
    const outputs: MediaOutputs = { durationSeconds: Math.round(info.durationSeconds * 1000) / 1000 };
    if (job.kind === "video" && info.video) {
      const made = await transcodeVideo(bins, input, out, { ...info, video: info.video }, options);
      Object.assign(outputs, {
        hls: `${prefix}hls/master.m3u8`,
        poster: `${prefix}poster.jpg`,
        renditions: made.renditions,
        sizes: made.sizes,
        ...(made.audioOnly ? { audioOnly: `${prefix}hls/${AUDIO_ONLY.name}/index.m3u8` } : {}),
      });
    } else {
      await mkdir(out);
      await normaliseVoice(bins, input, join(out, VOICE_FILE), info, options);
      outputs.audio = voiceCopyKey(job.object_key);
    }
    const files = (await filesUnder(out)).sort((a, b) => uploadOrder(a) - uploadOrder(b));
    for (const file of files) {
      options.signal.throwIfAborted();
      const type = CONTENT_TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream";
      await deps.storage.put(bucket, `${prefix}${file}`, createReadStream(join(out, file)), type);
    }
    // The original went while this ran (a deleted recording, a replaced video): its copies go too, at once, since
    // a deleted person's voice must not stay behind until the sweep.
    if (!(await deps.storage.stat(bucket, job.object_key))) {
      for (const file of files) await deps.storage.delete(bucket, `${prefix}${file}`).catch(() => undefined);
      await removeEmptiedFolders(deps.storage, [
        ...files.map((file) => ({ bucket, key: `${prefix}${file}` })),
        { bucket, key: job.object_key },
      ]);
      throw new MediaJobFailure("missing", "The original file was removed while it was processed");
    }
    return outputs;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const stateOf = (row: MediaJobRow): MediaJobState => ({
  status: row.status,
  progress: row.status === "ready" ? 100 : row.status === "processing" ? Math.min(99, row.progress) : 0,
  failure: row.status === "failed" ? (row.error_code ?? "failed") : null,
});

/** The processing state of each stored address (a reference, a signed link or a public path); null: no job. */
export async function statesOf(deps: Pick<AppDeps, "db">, paths: string[]): Promise<(MediaJobState | null)[]> {
  const objects = paths.map((p) => objectOf(p));
  const rows = await findJobs(
    deps.db,
    objects.filter((o) => o !== null).map((o) => ({ bucket: o.bucket, key: o.key })),
  );
  const byKey = new Map(rows.map((r) => [`${r.bucket}/${r.object_key}`, r]));
  return objects.map((o) => {
    const row = o ? byKey.get(`${o.bucket}/${o.key}`) : undefined;
    return row ? stateOf(row) : null;
  });
}

export const NO_STREAM: MediaStream = {
  hls: null,
  poster: null,
  durationSeconds: null,
  audioOnly: null,
  sizes: null,
};

/**
 * The HLS version of a video a player was given, once ready. A story's private video comes as its signed link; its
 * stream is answered only to whoever holds a valid one (`granted`, checked by the caller) and lives under one address
 * for every viewer (`/object/cookie/...`, issue 41), opened by the cookie the answer sets (storage/media-cookies.ts):
 * a CDN caches it once for everyone, and whoever was not handed the video's link (a locked story) gets no cookie
 * either. The playlists' relative addresses (renditions, segments) stay under the cookie's path. A public video's
 * stream is public.
 */
export async function streamOf(deps: Pick<AppDeps, "db" | "storage">, src: string, granted: boolean): Promise<MediaStream> {
  const object = objectOf(src);
  if (!object) return NO_STREAM;
  const base =
    object.bucket === STORY_MEDIA_BUCKET ? (granted ? COOKIE_MEDIA_ROOT : null) : `/storage/v1/object/public/${object.bucket}/`;
  if (!base) return NO_STREAM;
  // Captions do not wait for processing: the original plays with them too.
  const [[row], captions] = await Promise.all([
    findJobs(deps.db, [{ bucket: object.bucket, key: object.key }]),
    captionsOf(deps, object, base),
  ]);
  const outputs = row?.status === "ready" && row.outputs ? (JSON.parse(row.outputs) as MediaOutputs) : null;
  if (!outputs?.hls) return { ...NO_STREAM, captions };
  return {
    hls: `${base}${outputs.hls}`,
    poster: outputs.poster ? `${base}${outputs.poster}` : null,
    durationSeconds: outputs.durationSeconds,
    // Streams processed before issue 38 have neither: their players offer best quality only.
    audioOnly: outputs.audioOnly ? `${base}${outputs.audioOnly}` : null,
    sizes: outputs.sizes ?? null,
    captions,
  };
}

/** The expiry and signature a signed story-media link carries in its query, or null (a public address). */
export function linkSignature(src: string): { expires: string; signature: string } | null {
  const query = new URLSearchParams(src.split("?")[1] ?? "");
  const expires = query.get("expires");
  const signature = query.get("signature");
  return expires && signature ? { expires, signature } : null;
}

/**
 * The stream of a video link this server has just signed (a story's own answer carries it, issue 38), so the player
 * need not ask `GET /api/media/stream` about it; no second check of a signature just made.
 */
export const streamOfSignedLink = (deps: Pick<AppDeps, "db" | "storage">, link: string): Promise<MediaStream> =>
  streamOf(deps, link, linkSignature(link) !== null);

/**
 * The length ffprobe measured for each stored file processed so far, by `bucket/key`, in whole seconds: for a voice
 * whose upload carried none (a recording sent without the recorder's measure, a family member's answer).
 */
export async function measuredLengthsOf(
  deps: Pick<AppDeps, "db">,
  files: { bucket: string; key: string }[],
): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  for (const row of await findJobs(deps.db, files)) {
    if (row.status !== "ready" || !row.outputs) continue;
    const { durationSeconds } = JSON.parse(row.outputs) as MediaOutputs;
    if (durationSeconds > 0) lengths.set(`${row.bucket}/${row.object_key}`, Math.max(1, Math.round(durationSeconds)));
  }
  return lengths;
}

/** The processed voice of a recording, once ready (its key in the same bucket), else null: play the original. */
export async function voiceCopyOf(deps: Pick<AppDeps, "db">, bucket: Bucket, key: string): Promise<string | null> {
  const [row] = await findJobs(deps.db, [{ bucket, key }]);
  if (row?.status !== "ready" || !row.outputs) return null;
  return (JSON.parse(row.outputs) as MediaOutputs).audio ?? null;
}

/**
 * Removes the jobs of files whose rows went (a deleted account's recordings and voice messages): a job names the
 * person's file, and keeps its length and outputs. A job running meanwhile finds its claim gone and its original
 * missing, and removes what it made.
 */
export async function forgetJobsOf(deps: Pick<AppDeps, "db">, files: { bucket: string; key: string }[]): Promise<number> {
  return deleteJobs(deps.db, files);
}
