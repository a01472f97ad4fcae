import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MAX_RECORDING_SECONDS, RECORDING_TYPES, type Recording, recordIdSchema } from "@hikaya/contracts";
import type { RecordingsTable } from "../../db/schema.ts";
import { StaleSave, savedOrStale } from "../../db/versions.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/guards.ts";
import { admitMedia } from "../media/admission.ts";
import { voiceCopyKey } from "../media/enqueue.ts";
import { openStoryFor } from "../program/program.service.ts";
import { isValidLink as isValidSignedLink, signedQuery } from "../storage/signed-links.ts";
import { withSpool } from "../storage/spool.ts";
import { AudioInspector, type AudioLimits, RECORDING_LIMITS } from "./audio-inspector.ts";
import { findRecording, insertRecording, listRecordingsOf, updateRecordingTranscript } from "./recordings.repository.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "config" | "fileEvents">;
type LinkDeps = Pick<AppDeps, "auth">;

/** Signed playback links: the one mechanism for private media (storage/signed-links.ts), on the recording's id. */
const linkSubject = (id: string) => `recordings/${id}`;

export function signedAudioUrl(deps: LinkDeps, id: string, now = Date.now()): string {
  return `/api/recordings/${id}/audio?${signedQuery(deps, linkSubject(id), now)}`;
}

export function isValidLink(deps: LinkDeps, id: string, expires: number | undefined, signature: string | undefined): boolean {
  return isValidSignedLink(deps, linkSubject(id), expires, signature);
}

export const RECORDINGS_BUCKET = "recordings" as const;

function toRecording(deps: LinkDeps, row: RecordingsTable): Recording {
  const contentType = (RECORDING_TYPES as readonly string[]).includes(row.content_type)
    ? (row.content_type as Recording["contentType"])
    : "audio/wav";
  return {
    id: row.id,
    userId: row.user_id,
    storyId: row.story_id,
    questionIndex: row.question_index,
    contentType,
    size: row.size,
    durationSeconds: row.duration_seconds,
    createdAt: row.created_at,
    audioUrl: `/api/recordings/${row.id}/audio`,
    signedUrl: signedAudioUrl(deps, row.id),
    transcript: row.transcript ?? null,
    version: Number(row.version ?? 0),
  };
}

/** The story a recording is for: it must exist and be open to the person (not Locked). */
export async function checkRecordableStory(deps: Pick<AppDeps, "db">, auth: AuthContext, storyId: string) {
  if (!recordIdSchema.safeParse(storyId).success) throw new AppError("validation_failed", "story: is not a valid id");
  return openStoryFor(deps, auth, storyId);
}

export function parseQuestionIndex(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === "") return null;
  if (!/^\d{1,4}$/.test(raw.trim())) throw new AppError("validation_failed", "index: must be a whole number from 0 to 9999");
  return Number(raw.trim());
}

/**
 * The length the recorder measured (the "duration" part, seconds), kept for the files whose length the server
 * cannot read itself (WebM, Ogg, MP4: only WAV carries it in its header), so the family sees each take's length.
 */
export function parseClaimedDuration(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === "") return null;
  const seconds = Number(raw.trim());
  if (!/^\d{1,4}(\.\d{1,3})?$/.test(raw.trim()) || seconds > MAX_RECORDING_SECONDS)
    throw new AppError("validation_failed", `duration: must be a number of seconds from 0 to ${MAX_RECORDING_SECONDS}`);
  return Math.round(seconds);
}

export interface StoredAudio {
  id: string;
  key: string;
  contentType: string;
  size: number;
  durationSeconds: number | null;
}

/**
 * Takes one uploaded file into the private bucket: its type is decided from its first bytes, its size and (WAV)
 * duration are checked while it flows into a temporary file, then its length is measured (media/admission.ts: an
 * Ogg or WebM voice states none a sniffer can trust) and only a voice within the limit is stored, whole or not at
 * all. Never holds more than the first few KB in memory.
 */
export async function storeAudio(
  deps: Deps,
  userId: string,
  file: Readable,
  options: { folder?: string; limits?: AudioLimits } = {},
): Promise<StoredAudio> {
  const id = randomUUID();
  const key = `${userId}/${options.folder ? `${options.folder}/` : ""}${id}`;
  const limits = options.limits ?? RECORDING_LIMITS;
  const inspector = new AudioInspector(limits);
  // Busboy only truncates a file at its limit; stop at once instead, so the rest is never read.
  file.once("limit", () =>
    file.destroy(new AppError("payload_too_large", `A recording may be at most ${limits.maxBytes / 1024 / 1024} MB`)),
  );
  return withSpool(async (spool) => {
    try {
      await pipeline(file, inspector, createWriteStream(spool));
    } catch (error) {
      // The inspector's own error (too large, too long) says more than the pipeline's "premature close";
      // a file part the client cut short is its mistake, not ours.
      const cause = inspector.errored ?? error;
      if (cause instanceof AppError) throw cause;
      if (file.errored || (cause as { statusCode?: number }).statusCode === 400) {
        throw new AppError("bad_request", "The upload is incomplete or malformed");
      }
      throw cause;
    }
    const sniffed = await inspector.detected;
    await admitMedia(deps, spool, "voice", { maxVoiceSeconds: limits.maxSeconds });
    const { size } = await deps.storage.put(RECORDINGS_BUCKET, key, createReadStream(spool), sniffed.contentType);
    return { id, key, contentType: sniffed.contentType, size, durationSeconds: inspector.durationSeconds };
  });
}

/** Writes the row for a stored file; if that fails the file goes too, so nothing is left half-written. */
export async function saveRecording(
  deps: Deps,
  auth: AuthContext,
  stored: StoredAudio,
  storyId: string,
  questionIndex: number | null,
  claimedSeconds: number | null = null,
): Promise<Recording> {
  const row: RecordingsTable = {
    id: stored.id,
    user_id: auth.userId,
    story_id: storyId,
    question_index: questionIndex,
    object_key: stored.key,
    content_type: stored.contentType,
    size: stored.size,
    // The file's own length when it has one (WAV); else what the recorder measured.
    duration_seconds: stored.durationSeconds ?? claimedSeconds,
    created_at: new Date().toISOString(),
  };
  await insertRecording(deps.db, row);
  // A loudness-normalised AAC copy is made in the background (the media module listens); the audio route answers
  // it once ready.
  await deps.fileEvents.fileStored({
    bucket: RECORDINGS_BUCKET,
    key: stored.key,
    contentType: stored.contentType,
    use: { kind: "recording" },
  });
  return toRecording(deps, row);
}

export async function discardAudio(deps: Deps, stored: StoredAudio | null) {
  if (stored) await deps.storage.delete(RECORDINGS_BUCKET, stored.key).catch(() => undefined);
}

/** The stored files of a person's recordings (account deletion removes them after the rows). */
export async function recordingFilesOf(
  deps: Pick<AppDeps, "db">,
  userId: string,
): Promise<{ bucket: typeof RECORDINGS_BUCKET; key: string }[]> {
  // With each recording its processed copy (media module), which holds the same voice.
  return (await listRecordingsOf(deps.db, userId)).flatMap((row) => [
    { bucket: RECORDINGS_BUCKET, key: row.object_key },
    { bucket: RECORDINGS_BUCKET, key: voiceCopyKey(row.object_key) },
  ]);
}

export async function recordingsOf(deps: Pick<AppDeps, "db" | "auth">, userId: string): Promise<Recording[]> {
  return (await listRecordingsOf(deps.db, userId)).map((row) => toRecording(deps, row));
}

/**
 * A recording its owner or an admin may play, or anyone holding a valid signed link to it; everyone
 * else is told it does not exist.
 */
export async function playableRecording(deps: Pick<AppDeps, "db">, who: AuthContext | "signed-link", id: string) {
  const row = await findRecording(deps.db, id);
  if (!row) throw notFound("Recording not found");
  if (who !== "signed-link" && row.user_id !== who.userId && !who.isAdmin) throw notFound("Recording not found");
  return row;
}

export const missingAudio = () => badRequest("No recording found");

/**
 * The storyteller's words for their own recording (the keepsake book prints them), a versioned save: one naming a
 * version someone else already moved on from is refused with 409 stale_version and what is stored. Only the owner
 * writes them; anyone else is told the recording does not exist, as for playing it.
 */
export async function saveRecordingTranscript(
  deps: Pick<AppDeps, "db" | "auth">,
  auth: AuthContext,
  id: string,
  input: { transcript: string | null; version: number },
): Promise<Recording> {
  const owned = async (db: Pick<AppDeps, "db">["db"]) => {
    const row = await findRecording(db, id);
    if (!row || row.user_id !== auth.userId) throw notFound("Recording not found");
    return row;
  };
  await owned(deps.db);
  return savedOrStale(
    () =>
      deps.db.transaction().execute(async (trx) => {
        const row = await owned(trx);
        const version = await updateRecordingTranscript(trx, id, input.transcript, input.version);
        if (version === null) throw new StaleSave();
        return toRecording(deps, { ...row, transcript: input.transcript, version });
      }),
    async () => {
      const row = await findRecording(deps.db, id);
      return row ? toRecording(deps, row) : null;
    },
  );
}
