import { z } from "zod";

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
});
export type MediaStream = z.infer<typeof mediaStreamSchema>;
