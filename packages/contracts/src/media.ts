import { z } from "zod";
import { LANGUAGES } from "./constants.ts";

/** Processing of uploaded videos and voices (server: modules/media). */

export const MEDIA_JOB_STATUSES = ["waiting", "processing", "ready", "failed"] as const;
export type MediaJobStatus = (typeof MEDIA_JOB_STATUSES)[number];

/**
 * Why a job failed, by code: the console shows each in the operator's language (admin.json `media.failure.*`),
 * never the server's English.
 */
export const MEDIA_FAILURES = [
  "unreadable", // ffmpeg could not read it (not media, truncated, a format it does not know)
  "no_video_track", // a "video" with sound only
  "no_audio_track", // a voice with no sound in it
  "empty", // zero seconds long
  "timed_out", // ran past the time limit and was stopped
  "crashed", // every worker that took it stopped before finishing
  "missing", // the original is no longer in storage
  "failed", // ffmpeg stopped with an error while converting
] as const;
export type MediaFailure = (typeof MEDIA_FAILURES)[number];

export const mediaJobStateSchema = z.object({
  status: z.enum(MEDIA_JOB_STATUSES),
  /** 0-100 while processing. */
  progress: z.number().int().min(0).max(100),
  failure: z.enum(MEDIA_FAILURES).nullable(),
});
export type MediaJobState = z.infer<typeof mediaJobStateSchema>;

/** The console asks for the state of the files an editor shows (stored paths or signed links). */
export const mediaStatusQuerySchema = z.object({ paths: z.array(z.string().max(600)).min(1).max(20) });
/** One entry per asked path; null where no job exists (an outside address, a file stored before processing). */
export const mediaStatusAnswerSchema = z.object({ states: z.array(mediaJobStateSchema.nullable()) });
export type MediaStatusAnswer = z.infer<typeof mediaStatusAnswerSchema>;

/** What a player may use instead of the original: an HLS master playlist and a poster, once processed. */
export const mediaStreamQuerySchema = z.object({ src: z.string().max(600) });
export const mediaStreamSchema = z.object({
  hls: z.string().nullable(),
  poster: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  /** The audio-only variant's playlist (issue 38: "Audio only"), or null (no sound, processed before it). */
  audioOnly: z.string().nullable().optional(),
  /** Bytes a person fetches in each mode (issue 38: the card shows the chosen one), or null when not known. */
  sizes: z
    .object({ best: z.number().int(), saveData: z.number().int(), audioOnly: z.number().int().nullable() })
    .nullable()
    .optional(),
  /** WebVTT captions per language (WCAG 1.2.2), each under the video's own access rule; present or not, any time. */
  captions: z.array(z.object({ lang: z.enum(LANGUAGES), url: z.string() })).optional(),
});
export type MediaStream = z.infer<typeof mediaStreamSchema>;

/**
 * Captions of a story video, one WebVTT file per language, given by the console as text (an uploaded .vtt is read
 * in the browser). 256 KB holds hours of captions; a larger file is most likely not captions.
 */
export const CAPTIONS_MAX_BYTES = 256 * 1024;
export type CaptionsProblem = "not_webvtt" | "too_large";

/** Why a text is not a WebVTT file the players can use, or null. The console and the server both check. */
export function captionsProblem(text: string): CaptionsProblem | null {
  if (new TextEncoder().encode(text).length > CAPTIONS_MAX_BYTES) return "too_large";
  // The format's signature: "WEBVTT" at the very start (after an optional byte order mark), then a space, tab or end of line.
  return /^\uFEFF?WEBVTT(?:[ \t\r\n]|$)/.test(text) ? null : "not_webvtt";
}

export const captionsInputSchema = z.object({
  /** The video as the console has it: its stored path or signed link. */
  src: z.string().max(600),
  lang: z.enum(LANGUAGES),
  text: z.string().max(CAPTIONS_MAX_BYTES),
});
export type CaptionsInput = z.infer<typeof captionsInputSchema>;
export const captionsTargetSchema = captionsInputSchema.pick({ src: true, lang: true });
