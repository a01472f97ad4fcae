import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Binaries, MediaJobFailure, type Probe, run } from "./ffmpeg.ts";

/**
 * The ladder a weak connection climbs: each rung's short side (a 1080×1920 portrait upload's 720 rung is 720×1280),
 * video and audio bit rates (kbit/s) and audio channels. A source is never scaled up: rungs above its short side are
 * left out, and a source below the lowest rung gets one rung at its own size. The lowest rung is for prepaid links of
 * about 400 kbit/s (issue 38): 180 lines and mono speech fit in about 200 kbit/s with room for the link's dips.
 */
export const LADDER = [
  { height: 180, video: 160, audio: 32, channels: 1 },
  { height: 240, video: 400, audio: 64, channels: 2 },
  { height: 360, video: 800, audio: 96, channels: 2 },
  { height: 480, video: 1400, audio: 128, channels: 2 },
  { height: 720, video: 2800, audio: 128, channels: 2 },
] as const;

/** The audio-only variant every master playlist lists last (a story is mostly a voice): AAC, mono. */
export const AUDIO_ONLY = { name: "audio", audio: 48, channels: 1 } as const;

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

type Rung = { height: number; video: number; audio: number; channels: number };

/** The source's short side: rungs are named and chosen by it, so portrait and landscape get the same sharpness. */
const shortSide = (source: { width: number; height: number }) => Math.min(source.width, source.height);

export function rungsFor(source: { width: number; height: number }): Rung[] {
  const fitting = LADDER.filter((r) => r.height <= shortSide(source));
  if (fitting.length > 0) return fitting;
  // Smaller than the lowest rung: one rendition at the source's own (even) short side.
  const own = shortSide(source) - (shortSide(source) % 2);
  return [{ ...LADDER[0], height: own }];
}

/** A rung's frame size: its short side, the other side at the source's aspect to the nearest even number. */
function frameOf(source: { width: number; height: number }, side: number) {
  const long = Math.round((Math.max(source.width, source.height) * side) / shortSide(source) / 2) * 2;
  return source.width >= source.height ? { width: long, height: side } : { width: side, height: long };
}

/** Bytes of each mode a person may choose (issue 38), as the story's card shows them before it plays. */
export interface ModeSizes {
  best: number;
  saveData: number;
  audioOnly: number | null;
}

export interface Transcoded {
  /** Each rung's short side, lowest first. */
  renditions: number[];
  /** Whether `hls/audio/index.m3u8` was made (a source with sound). */
  audioOnly: boolean;
  sizes: ModeSizes;
}

/** A rendition's segments, from its playlist: bytes and seconds each. */
async function segmentsOf(dir: string): Promise<{ bytes: number; seconds: number }[]> {
  const playlist = await readFile(join(dir, "index.m3u8"), "utf8");
  const lines = playlist.split("\n");
  const segments: { bytes: number; seconds: number }[] = [];
  for (const [i, line] of lines.entries()) {
    const m = /^#EXTINF:([\d.]+)/.exec(line);
    const file = lines[i + 1]?.trim();
    if (m && file) segments.push({ bytes: (await stat(join(dir, file))).size, seconds: Number(m[1]) });
  }
  return segments;
}

/**
 * A rendition's peak bit rate (bits/s), what BANDWIDTH must declare: a player that trusts a lower figure picks a rung
 * its link cannot carry and stalls. The highest of its segments' own rates; a closing fragment under half a second
 * is left out (its container overhead, not its content, would set the figure), unless it is all there is.
 */
export function peakBitRate(segments: { bytes: number; seconds: number }[]): number {
  const whole = segments.filter((s) => s.seconds >= 0.5);
  const counted = whole.length > 0 ? whole : segments;
  return Math.ceil(Math.max(1, ...counted.map((s) => (s.bytes * 8) / Math.max(s.seconds, 0.001))));
}

const sum = (segments: { bytes: number }[]) => segments.reduce((total, s) => total + s.bytes, 0);

/** The HLS muxer's options for one rendition into `dir`: the opening segments, VOD, numbered .ts files. */
const hlsOutput = (dir: string) => [
  ...["-f", "hls", "-hls_init_time", String(FIRST), "-hls_time", String(SECOND), "-hls_playlist_type", "vod"],
  ...["-hls_segment_filename", join(dir, "seg_%04d.ts"), join(dir, "index.m3u8")],
];

/**
 * HLS renditions of a video into `outDir/hls` (one playlist per rung, an audio-only one, the master playlist written
 * last) and a poster frame at `outDir/poster.jpg`. One ffmpeg run decodes the source once and `split`s it to every
 * rung's scaler and encoder: a per-rung run decoded a 1080p source once per rung. Every rung's segments start on the
 * same key frames (KEY_FRAMES), so a player can switch rendition at any segment boundary.
 */
export async function transcodeVideo(
  bins: Binaries,
  input: string,
  outDir: string,
  info: Probe & { video: { width: number; height: number } },
  options: TranscodeOptions,
): Promise<Transcoded> {
  const rungs = rungsFor(info.video);
  const durationMicros = Math.max(1, info.durationSeconds * 1e6);
  const threads = ["-threads", String(options.threads)];
  const landscape = info.video.width >= info.video.height;
  const labels = rungs.map((_, i) => `[s${i}]`).join("");
  const graph = [
    `[0:v]split=${rungs.length}${labels}`,
    ...rungs.map((r, i) => `[s${i}]scale=${landscape ? `-2:${r.height}` : `${r.height}:-2`}[v${i}]`),
  ].join(";");
  const outputs: string[] = [];
  for (const rung of rungs) {
    const dir = join(outDir, "hls", `${rung.height}p`);
    await mkdir(dir, { recursive: true });
    const audio = info.hasAudio
      ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", `${rung.audio}k`, "-ac", String(rung.channels), "-ar", "44100"]
      : [];
    outputs.push(
      ...["-map", `[v${rungs.indexOf(rung)}]`, ...audio, ...threads],
      ...["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-pix_fmt", "yuv420p"],
      ...["-b:v", `${rung.video}k`, "-maxrate", `${Math.round(rung.video * 1.1)}k`, "-bufsize", `${rung.video * 2}k`],
      ...["-sc_threshold", "0", "-force_key_frames", KEY_FRAMES, ...hlsOutput(dir)],
    );
  }
  const audioDir = join(outDir, "hls", AUDIO_ONLY.name);
  if (info.hasAudio) {
    await mkdir(audioDir, { recursive: true });
    outputs.push(
      ...["-map", "0:a:0", "-vn", "-c:a", "aac", "-b:a", `${AUDIO_ONLY.audio}k`, "-ac", String(AUDIO_ONLY.channels)],
      ...["-ar", "44100", ...threads, ...hlsOutput(audioDir)],
    );
  }
  await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "error", "-progress", "pipe:1"],
      ...[...threads, "-i", input, "-filter_complex", graph, ...outputs],
    ],
    { signal: options.signal, onProgress: (micros) => options.onProgress(Math.min(1, micros / durationMicros) / 1.1) },
  );
  const lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"];
  const rungSegments = [];
  for (const rung of rungs) {
    const segments = await segmentsOf(join(outDir, "hls", `${rung.height}p`));
    rungSegments.push(segments);
    const frame = frameOf(info.video, rung.height);
    const codecs = info.hasAudio ? "avc1.4d401f,mp4a.40.2" : "avc1.4d401f";
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${peakBitRate(segments)},RESOLUTION=${frame.width}x${frame.height},CODECS="${codecs}"`,
      `${rung.height}p/index.m3u8`,
    );
  }
  const audioSegments = info.hasAudio ? await segmentsOf(audioDir) : null;
  if (audioSegments) {
    // Last: a player starts on the first variant, and a person who chose sound alone is sent to it by address.
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${peakBitRate(audioSegments)},CODECS="mp4a.40.2"`, `${AUDIO_ONLY.name}/index.m3u8`);
  }
  await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error"],
      // A frame a second in (or half-way through a shorter clip): the first frame is often black.
      ...["-ss", String(Math.min(1, info.durationSeconds / 2)), "-i", input, ...threads],
      ...["-frames:v", "1", "-vf", `scale=-2:${Math.min(POSTER_HEIGHT, info.video.height)}`, "-q:v", "4"],
      join(outDir, "poster.jpg"),
    ],
    { signal: options.signal },
  );
  await writeFile(join(outDir, "hls", "master.m3u8"), `${lines.join("\n")}\n`);
  options.onProgress(1);
  return {
    renditions: rungs.map((r) => r.height),
    audioOnly: audioSegments !== null,
    sizes: {
      best: sum(rungSegments.at(-1) ?? []),
      saveData: sum(rungSegments[0] ?? []),
      audioOnly: audioSegments ? sum(audioSegments) : null,
    },
  };
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
