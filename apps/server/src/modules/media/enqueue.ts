import { type Bucket, UPLOAD_PURPOSES, type UploadPurpose } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { derivedPrefix } from "../storage/derived-files.ts";
import type { StoredFile } from "../storage/file-events.ts";
import { insertJob, type MediaKind } from "./media.repository.ts";

/**
 * How media jobs come to be. The one entry point is `enqueueStoredFile`, media's listener on storage's "file stored"
 * event (storage/file-events.ts; app.ts wires it): recordings, voice messages, console uploads and stories' private
 * copies announce what they stored, and this decides whether and how it is processed. `enqueueMedia` writes the
 * job row, which any replica's worker may claim; the local worker is woken at once, the others find it on their
 * next look. The backfill (and tests) call it directly.
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

/** Media's listener on "file stored": a job for each stored file that plays after processing. */
export async function enqueueStoredFile(deps: Pick<AppDeps, "db">, file: StoredFile): Promise<void> {
  const kind = jobKindOf(file);
  if (kind) await enqueueMedia(deps, { bucket: file.bucket, key: file.key, kind });
}

/**
 * Console uploads that play from where they were uploaded (instruction and landing videos, family members'
 * voices). Story videos and question media are copied into private storage when a story takes them, and that
 * copy is what gets processed (storage/story-media.ts `privateMediaRef`).
 */
export const PROCESSED_AT_UPLOAD: readonly UploadPurpose[] = ["instruction", "audio"];

/** The job a stored file needs, or null when nothing is processed (images, documents, uploads a story will copy). */
export function jobKindOf(file: StoredFile): MediaKind | null {
  switch (file.use.kind) {
    case "recording":
    case "voice-note":
      return "audio";
    case "upload":
      if (!PROCESSED_AT_UPLOAD.includes(file.use.purpose)) return null;
      return UPLOAD_PURPOSES[file.use.purpose].kind === "video" ? "video" : "audio";
    case "story-media":
      // A voice recorded in WebM reads as video/webm, so the field decides.
      return file.use.field === "audio" ? "audio" : mediaKindOf(file.contentType);
  }
}

/** The job kind for a stored file by its type, or null when nothing is processed (images, documents). */
export function mediaKindOf(contentType: string): MediaKind | null {
  if (contentType.startsWith("video/")) return "video";
  if (contentType.startsWith("audio/")) return "audio";
  return null;
}

/** Where a voice's normalised copy is stored (media.service.ts writes it there), beside its source. */
export const VOICE_FILE = "voice.m4a";
export const voiceCopyKey = (key: string) => `${derivedPrefix(key)}${VOICE_FILE}`;
