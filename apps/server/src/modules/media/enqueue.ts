import type { Bucket, UploadPurpose } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { insertJob, type MediaKind } from "./media.repository.ts";

/**
 * What the upload and attach paths call (admin uploads, story media, recordings): a job row in the database,
 * which any replica's worker may claim. The local worker is woken at once; the others find it on their next look.
 * Kept apart from the service so that storage (which the service reads addresses through) can call it without
 * an import cycle.
 */
const wake = new EventTarget();

export function onMediaEnqueued(listener: () => void): () => void {
  wake.addEventListener("enqueued", listener);
  return () => wake.removeEventListener("enqueued", listener);
}

export async function enqueueMedia(
  deps: Pick<AppDeps, "db">,
  source: { bucket: Bucket; key: string; kind: MediaKind },
): Promise<void> {
  await insertJob(deps.db, source, new Date().toISOString());
  wake.dispatchEvent(new Event("enqueued"));
}

/**
 * Console uploads that play from where they were uploaded (instruction and landing videos, family members'
 * voices). Story videos and question media are copied into private storage when a story takes them, and that
 * copy is what gets processed (storage/story-media.ts `privateMediaRef`).
 */
export const PROCESSED_AT_UPLOAD: readonly UploadPurpose[] = ["instruction", "audio"];

/** The job kind for an uploaded file by what it is for, or null when nothing is processed (images, documents). */
export function mediaKindOf(contentType: string): MediaKind | null {
  if (contentType.startsWith("video/")) return "video";
  if (contentType.startsWith("audio/")) return "audio";
  return null;
}

/** Where a source's processed files live: beside it, under `<key>.media/`, so the sweep can find their owner. */
export const DERIVED_MARK = ".media/";
export const derivedPrefix = (key: string) => `${key}${DERIVED_MARK}`;

/** Where a voice's normalised copy is stored (media.service.ts writes it there). */
export const VOICE_FILE = "voice.m4a";
export const voiceCopyKey = (key: string) => `${derivedPrefix(key)}${VOICE_FILE}`;

/** The source key a processed file belongs to, or null for any other key. */
export function ownerKeyOf(key: string): string | null {
  const at = key.indexOf(DERIVED_MARK);
  return at > 0 ? key.slice(0, at) : null;
}
