import { MAX_RECORDING_SECONDS } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { loadBinaries, MediaJobFailure, type Probe, probe } from "./ffmpeg.ts";

/**
 * What every upload path asks before it keeps a voice or a video (recordings, voice messages, the console's uploads):
 * the file, spooled to a temporary file (storage/spool.ts), is measured with ffprobe, or by reading its packets when
 * its header states no length (Chrome's MediaRecorder WebM), and refused over its bounds, before any row or job
 * exists. A length checked only in WAV headers let an 18-minute Ogg voice through to queue hours of media work.
 */

/** A recorder stops at the limit; its last packet may end a few milliseconds past it. */
const SLACK_SECONDS = 1;
/** Reading a 10-minute voice's packets takes well under a second; a probe stuck past this is not a voice. */
const PROBE_TIME_LIMIT_MS = 120_000;

export type Admission = "voice" | "video";

/**
 * Measures `file` and refuses it with a code the person's screen translates: `media_unreadable` (ffprobe cannot read
 * it, or it has no sound where a voice is wanted, nor picture or sound for a video), `voice_too_long` (past 10
 * minutes), `video_too_long` and `video_too_large` (past MEDIA_MAX_VIDEO_MINUTES, MEDIA_MAX_VIDEO_SIDE_PX). A "video"
 * with sound only (a question's audio, recorded as WebM) is held to the voice limit. Returns what was measured.
 */
export async function admitMedia(
  deps: Pick<AppDeps, "config">,
  file: string,
  as: Admission,
  // A voice path with a shorter limit than a recording's (a relative's message on a share link).
  { maxVoiceSeconds = MAX_RECORDING_SECONDS }: { maxVoiceSeconds?: number } = {},
): Promise<Probe> {
  const bins = await loadBinaries();
  let info: Probe;
  try {
    info = await probe(bins, file, AbortSignal.timeout(PROBE_TIME_LIMIT_MS));
  } catch (error) {
    if (error instanceof MediaJobFailure || (error as { name?: string }).name === "TimeoutError")
      throw new AppError("media_unreadable", "This file could not be read as audio or video");
    throw error;
  }
  const bounds = deps.config.media;
  if (as === "video" && info.video) {
    const side = Math.max(info.video.width, info.video.height);
    if (side > bounds.maxVideoSidePx)
      throw new AppError(
        "video_too_large",
        `The video is ${info.video.width}×${info.video.height}; at most ${bounds.maxVideoSidePx} pixels on a side are accepted`,
        { limitPx: bounds.maxVideoSidePx, width: info.video.width, height: info.video.height },
      );
    if (info.durationSeconds > bounds.maxVideoSeconds + SLACK_SECONDS)
      throw new AppError("video_too_long", `The video may be at most ${bounds.maxVideoSeconds / 60} minutes long`, {
        limitMinutes: bounds.maxVideoSeconds / 60,
        seconds: Math.round(info.durationSeconds),
      });
    return info;
  }
  if (!info.hasAudio) throw new AppError("media_unreadable", "This file has no sound to play");
  if (info.durationSeconds > maxVoiceSeconds + SLACK_SECONDS)
    throw new AppError("voice_too_long", `A voice may be at most ${maxVoiceSeconds / 60} minutes long`, {
      limitMinutes: maxVoiceSeconds / 60,
      seconds: Math.round(info.durationSeconds),
    });
  return info;
}
