import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { admitMedia } from "../media/admission.ts";
// One audio sniffer for the whole server: the recordings module's (file-type, plus a track check for WebM/MP4).
import { detectAudio, HEAD_BYTES } from "../recordings/audio-inspector.ts";
import { withSpool } from "../storage/spool.ts";

export const VOICE_BUCKET = "voice-notes" as const;

const EXTENSIONS: Record<string, string> = {
  "audio/wav": "wav",
  "audio/webm": "webm",
  "audio/ogg": "ogg",
  "audio/mp4": "m4a",
  "audio/mpeg": "mp3",
  "audio/aac": "aac",
};

export interface StoredVoiceNote {
  key: string;
  contentType: string;
  size: number;
}

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `Voice messages are limited to ${Math.round(maxBytes / 1024 / 1024)} MB`);

/**
 * Takes a voice note into the private bucket under `${keyBase}.${ext}`: the type is decided from the
 * first bytes (the browser's name and Content-Type are not trusted), the size is capped while the bytes
 * flow into a temporary file, its length is measured (media/admission.ts), and only then is it stored, whole
 * (the storage drivers keep a partial object from ever appearing). Only the first few KB are ever held in
 * memory. Throws `unsupported_media_type`, `bad_request` (empty), `payload_too_large`, `media_unreadable` or
 * `voice_too_long`.
 */
export async function storeVoiceNote(
  deps: Pick<AppDeps, "storage" | "config">,
  keyBase: string,
  source: Readable,
  maxBytes: number,
): Promise<StoredVoiceNote> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const drain = () => {
    source.resume();
  };
  const headChunks: Buffer[] = [];
  let headSize = 0;
  let done = false;
  try {
    while (headSize < HEAD_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      headChunks.push(next.value);
      headSize += next.value.length;
    }
  } catch (error) {
    if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw tooLarge(maxBytes);
    throw error;
  }
  const head = Buffer.concat(headChunks);
  if (head.length === 0) throw new AppError("bad_request", "No recording found");
  if (head.length > maxBytes) {
    drain();
    throw tooLarge(maxBytes);
  }
  const sniffed = await detectAudio(head);
  const ext = sniffed ? EXTENSIONS[sniffed.contentType] : undefined;
  if (!sniffed || !ext) {
    drain();
    throw new AppError("unsupported_media_type", "The voice message must be WAV, WebM, Ogg, MP4/AAC or MP3 audio");
  }
  let total = head.length;
  let overflow: AppError | null = null;
  const body = Readable.from(
    (async function* () {
      yield head;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        total += next.value.length;
        if (total > maxBytes) {
          overflow = tooLarge(maxBytes);
          drain();
          throw overflow;
        }
        yield next.value;
      }
    })(),
  );
  const key = `${keyBase}.${ext}`;
  return withSpool(async (spool) => {
    try {
      await pipeline(body, createWriteStream(spool));
    } catch (error) {
      if (overflow || (error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw tooLarge(maxBytes);
      throw error;
    }
    await admitMedia(deps, spool, "voice");
    const { size } = await deps.storage.put(VOICE_BUCKET, key, createReadStream(spool), sniffed.contentType);
    return { key, size, contentType: sniffed.contentType };
  });
}
