import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Binaries, MediaJobFailure, type Probe, run } from "./ffmpeg.ts";

/**
 * The ladder a weak connection climbs: each rung's height, video and audio bit rates (kbit/s). A source is never
 * scaled up: rungs above its height are left out, and a source below the lowest rung gets one rung at its own size.
 */
export const LADDER = [
  { height: 240, video: 400, audio: 64 },
  { height: 360, video: 800, audio: 96 },
  { height: 480, video: 1400, audio: 128 },
  { height: 720, video: 2800, audio: 128 },
] as const;

/** Segments of about 4 s: short enough to switch rendition soon on a changing connection, few enough requests. */
export const SEGMENT_SECONDS = 4;
/**
 * Except the first two, of 1 s and 2 s. A player shows nothing until a whole segment has arrived: on a 1.6 Mbit/s
 * phone connection a 4 s segment of the lowest rung (about 230 KB) took 1.2 s where a 1 s one (about 45 KB) takes
 * 0.25 s. The 2 s one after it (about 115 KB) arrives before that first second has played, so playback does not stop
 * for the first 4 s one; a 3 s one did.
 */
export const OPENING_SEGMENTS = [1, 2] as const;
/**
 * Key frames where segments start (0, 1, 3, then every SEGMENT_SECONDS: 7, 11, …), the same for every rung, so a
 * player switches rendition at any boundary. `-hls_init_time` cuts the first segment at 1 s; `-hls_time` 2 then cuts
 * at the next key frame at least 2 s on, which the grid makes 3 s and then every 4 s.
 */
const [FIRST, SECOND] = OPENING_SEGMENTS;
export const KEY_FRAMES = `expr:gte(t,if(lt(n_forced,2),n_forced*${FIRST},${FIRST + SECOND}+(n_forced-2)*${SEGMENT_SECONDS}))`;
/**
 * The poster shows only until the first frame, which is the 240p rung's: taller than 360 lines it would cost a weak
 * connection bytes (a 720p frame is about 45 KB) in the very seconds the first segment needs them.
 */
const POSTER_HEIGHT = 360;

export interface TranscodeOptions {
  signal: AbortSignal;
  /** ffmpeg threads per run (tests: 1, so parallel test files share the machine). */
  threads: number;
  /** Share of the whole job done, 0-1. */
  onProgress: (fraction: number) => void;
}

export function rungsFor(source: { width: number; height: number }) {
  const fitting = LADDER.filter((r) => r.height <= source.height);
  if (fitting.length > 0) return fitting;
  // Smaller than 240 lines: one rendition at the source's own (even) height.
  return [{ height: source.height - (source.height % 2), video: 300, audio: 64 }];
}

/** The width ffmpeg's `scale=-2:<height>` gives: the source's aspect, to the nearest even number. */
const evenWidth = (source: { width: number; height: number }, height: number) =>
  Math.round((source.width * height) / source.height / 2) * 2;

/**
 * HLS renditions of a video into `outDir/hls` (one playlist per rung, its master playlist written last) and a
 * poster frame at `outDir/poster.jpg`. Every rung's segments start on the same key frames (KEY_FRAMES), so a player
 * can switch rendition at any segment boundary.
 */
export async function transcodeVideo(
  bins: Binaries,
  input: string,
  outDir: string,
  info: Probe & { video: { width: number; height: number } },
  options: TranscodeOptions,
): Promise<{ renditions: number[] }> {
  const rungs = rungsFor(info.video);
  const durationMicros = Math.max(1, info.durationSeconds * 1e6);
  const lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const [index, rung] of rungs.entries()) {
    const name = `${rung.height}p`;
    await mkdir(join(outDir, "hls", name), { recursive: true });
    const audio = info.hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", `${rung.audio}k`, "-ac", "2", "-ar", "44100"] : [];
    await run(
      bins.ffmpeg,
      [
        ...["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "error", "-progress", "pipe:1"],
        ...["-i", input, "-threads", String(options.threads), "-map", "0:v:0", ...audio],
        ...["-vf", `scale=-2:${rung.height}`, "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main"],
        ...["-pix_fmt", "yuv420p", "-b:v", `${rung.video}k`, "-maxrate", `${Math.round(rung.video * 1.1)}k`],
        ...["-bufsize", `${rung.video * 2}k`, "-sc_threshold", "0"],
        ...["-force_key_frames", KEY_FRAMES],
        ...["-f", "hls", "-hls_init_time", String(FIRST), "-hls_time", String(SECOND)],
        ...["-hls_playlist_type", "vod"],
        ...["-hls_segment_filename", join(outDir, "hls", name, "seg_%04d.ts"), join(outDir, "hls", name, "index.m3u8")],
      ],
      {
        signal: options.signal,
        onProgress: (micros) => options.onProgress((index + Math.min(1, micros / durationMicros)) / (rungs.length + 0.2)),
      },
    );
    const bandwidth = (rung.video * 1.1 + (info.hasAudio ? rung.audio : 0)) * 1000;
    const codecs = info.hasAudio ? "avc1.4d401f,mp4a.40.2" : "avc1.4d401f";
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${Math.round(bandwidth)},RESOLUTION=${evenWidth(info.video, rung.height)}x${rung.height},CODECS="${codecs}"`,
      `${name}/index.m3u8`,
    );
  }
  await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error"],
      // A frame a second in (or half-way through a shorter clip): the first frame is often black.
      ...["-ss", String(Math.min(1, info.durationSeconds / 2)), "-i", input, "-threads", String(options.threads)],
      ...[
        "-frames:v",
        "1",
        "-vf",
        `scale=-2:${Math.min(POSTER_HEIGHT, info.video.height)}`,
        "-q:v",
        "4",
        join(outDir, "poster.jpg"),
      ],
    ],
    { signal: options.signal },
  );
  await writeFile(join(outDir, "hls", "master.m3u8"), `${lines.join("\n")}\n`);
  options.onProgress(1);
  return { renditions: rungs.map((r) => r.height) };
}

/** The AAC-in-MP4 copy of a voice, loudness-normalised to about -16 LUFS so every voice plays at one level. */
export async function normaliseVoice(
  bins: Binaries,
  input: string,
  outFile: string,
  info: Probe,
  options: TranscodeOptions,
): Promise<void> {
  const durationMicros = Math.max(1, info.durationSeconds * 1e6);
  await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "error", "-progress", "pipe:1"],
      ...["-i", input, "-threads", String(options.threads), "-vn", "-map", "0:a:0"],
      ...["-af", "loudnorm=I=-16:TP=-1.5:LRA=11", "-ar", "48000", "-c:a", "aac", "-b:a", "96k"],
      ...["-movflags", "+faststart", outFile],
    ],
    { signal: options.signal, onProgress: (micros) => options.onProgress(Math.min(1, micros / durationMicros)) },
  );
}

/** Checks a probe against what a job needs, failing with the reason an operator can act on. */
export function checkInput(kind: "video" | "audio", info: Probe): void {
  // Length first: a file with no frames may not even report its track's size.
  if (!(info.durationSeconds > 0.05)) throw new MediaJobFailure("empty", "The file is 0 seconds long");
  if (kind === "video" && !info.video) throw new MediaJobFailure("no_video_track", "The file has no video track");
  if (kind === "audio" && !info.hasAudio) throw new MediaJobFailure("no_audio_track", "The file has no sound");
}

/** Every file under `dir`, as paths relative to it. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}
