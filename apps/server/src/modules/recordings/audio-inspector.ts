import { Transform, type TransformCallback } from "node:stream";
import { MAX_RECORDING_BYTES, MAX_RECORDING_SECONDS } from "@hikaya/contracts";
import { AppError } from "../../errors.ts";
import { declaredTracks, isAudioOnly } from "./media-tracks.ts";

export type AudioType = "audio/wav" | "audio/webm" | "audio/ogg" | "audio/mp4" | "audio/mpeg" | "audio/aac";

export interface WavFormat {
  byteRate: number;
  dataOffset: number;
  /** From the header; null when the recorder wrote a placeholder (streamed WAV). */
  dataSize: number | null;
}

export interface Sniffed {
  contentType: AudioType;
  wav?: WavFormat;
}

/** Bytes looked at before deciding the type: enough for a WAV header with a LIST chunk before `data`. */
export const HEAD_BYTES = 4096;

function parseWav(head: Buffer): WavFormat | undefined {
  let byteRate = 0;
  let offset = 12;
  while (offset + 8 <= head.length) {
    const id = head.toString("latin1", offset, offset + 4);
    const size = head.readUInt32LE(offset + 4);
    if (id === "fmt " && offset + 20 <= head.length) byteRate = head.readUInt32LE(offset + 16);
    if (id === "data") {
      const unknown = size === 0 || size === 0xffffffff;
      return byteRate > 0 ? { byteRate, dataOffset: offset + 8, dataSize: unknown ? null : size } : undefined;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

const MATROSKA = new Set(["video/webm", "audio/webm", "video/matroska", "video/x-matroska", "audio/x-matroska"]);
const MP4 = new Set(["audio/x-m4a", "audio/mp4", "video/mp4"]);

/**
 * The real type of an audio file from its first bytes, by file-type; the name and the client's type are not
 * trusted (the spec's client names WAV data `.mp3`). WebM and MP4 must also list only audio tracks (see
 * media-tracks.ts: file-type cannot tell an audio recording in those containers from a video). Null for
 * anything that is not WAV, WebM/Matroska or MP4/M4A audio, Ogg audio, ADTS AAC or MP3.
 */
export async function detectAudio(head: Buffer): Promise<Sniffed | null> {
  // file-type loads on the first upload, not at start-up.
  const { fileTypeFromBuffer } = await import("file-type");
  const type = await fileTypeFromBuffer(head);
  const mime = type?.mime.split(";")[0]?.trim();
  if (!mime) return null;
  if (mime === "audio/wav" || mime === "audio/vnd.wave" || mime === "audio/x-wav") {
    const wav = parseWav(head);
    return wav ? { contentType: "audio/wav", wav } : null;
  }
  if (MATROSKA.has(mime)) return isAudioOnly(declaredTracks("matroska", head)) ? { contentType: "audio/webm" } : null;
  if (MP4.has(mime)) {
    const tracks = declaredTracks("mp4", head);
    // An .m4a whose track list comes after the media (not "fast start") is trusted by its M4A brand alone.
    const audio = tracks === null ? mime === "audio/x-m4a" : isAudioOnly(tracks);
    return audio ? { contentType: "audio/mp4" } : null;
  }
  if (mime === "audio/ogg" || mime === "audio/opus") return { contentType: "audio/ogg" };
  if (mime === "audio/mpeg") return { contentType: "audio/mpeg" };
  if (mime === "audio/aac") return { contentType: "audio/aac" };
  return null;
}

/** How large and how long an upload may be: a story recording's by default, a relative's voice less. */
export interface AudioLimits {
  maxBytes: number;
  maxSeconds: number;
}

export const RECORDING_LIMITS: AudioLimits = { maxBytes: MAX_RECORDING_BYTES, maxSeconds: MAX_RECORDING_SECONDS };

/**
 * Passes an upload through while deciding its type from the first bytes, counting its size and, for
 * WAV, refusing it as soon as it runs past the duration limit. `detected` settles once the type is known.
 */
export class AudioInspector extends Transform {
  readonly detected: Promise<Sniffed>;
  bytes = 0;
  #head: Buffer[] = [];
  #headLength = 0;
  #sniffed: Sniffed | undefined;
  #resolve!: (s: Sniffed) => void;
  #reject!: (e: unknown) => void;

  readonly limits: AudioLimits;

  constructor(limits: AudioLimits = RECORDING_LIMITS) {
    super();
    this.limits = limits;
    this.detected = new Promise<Sniffed>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A consumer that awaits `detected` later must not see an unhandled rejection meanwhile.
    this.detected.catch(() => undefined);
    this.on("error", (e) => this.#reject(e));
    this.on("close", () => this.#reject(new AppError("bad_request", "The upload ended early")));
  }

  /** Seconds of audio, known for WAV from its byte rate; null for other containers. */
  get durationSeconds(): number | null {
    const wav = this.#sniffed?.wav;
    if (!wav) return null;
    const data = Math.max(0, this.bytes - wav.dataOffset);
    return Math.round((Math.min(data, wav.dataSize ?? data) / wav.byteRate) * 1000) / 1000;
  }

  #tooLong(): AppError | undefined {
    const seconds = this.durationSeconds;
    if (seconds !== null && seconds > this.limits.maxSeconds) {
      return new AppError("payload_too_large", `A recording may be at most ${this.limits.maxSeconds / 60} minutes long`);
    }
    return undefined;
  }

  async #decide(): Promise<AppError | undefined> {
    const head = Buffer.concat(this.#head);
    this.#head = [];
    if (head.length === 0) return new AppError("bad_request", "No recording found");
    const sniffed = await detectAudio(head);
    if (!sniffed) return new AppError("unsupported_media_type", "The recording must be WAV, WebM, Ogg, MP4/AAC or MP3 audio");
    const claimed = sniffed.wav?.dataSize;
    if (sniffed.wav && claimed && claimed / sniffed.wav.byteRate > this.limits.maxSeconds) {
      return new AppError("payload_too_large", `A recording may be at most ${this.limits.maxSeconds / 60} minutes long`);
    }
    this.#sniffed = sniffed;
    this.#resolve(sniffed);
    this.push(head);
    return undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) {
      callback(new AppError("payload_too_large", `A recording may be at most ${this.limits.maxBytes / 1024 / 1024} MB`));
      return;
    }
    if (this.#sniffed) {
      callback(this.#tooLong(), chunk);
      return;
    }
    this.#head.push(chunk);
    this.#headLength += chunk.length;
    if (this.#headLength < HEAD_BYTES) return callback();
    this.#decide().then(
      (error) => callback(error ?? this.#tooLong()),
      (error: unknown) => callback(error as Error),
    );
  }

  override _flush(callback: TransformCallback) {
    if (this.#sniffed) return callback(this.#tooLong());
    this.#decide().then(
      (error) => callback(error ?? this.#tooLong()),
      (error: unknown) => callback(error as Error),
    );
  }
}
