import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Binaries, probe, run } from "../apps/server/src/modules/media/ffmpeg.ts";
import {
  AUDIO_ONLY,
  KEY_FRAMES,
  OPENING_SEGMENTS,
  rungsFor,
  transcodeVideo,
} from "../apps/server/src/modules/media/transcode.ts";

/**
 * Issue 38, decode once: the CPU the whole ladder (180-720p and the sound alone) costs from one ffmpeg run that
 * decodes the source once (`transcodeVideo`, what the worker runs), beside the per-rung runs it replaced (each rung,
 * and the sound, its own run decoding the source again: the pre-issue-38 commands, with the same ladder, rates and
 * key frames), both on one thread. CPU is ffmpeg's own, user and system, read from this process's waited-for
 * children (/proc/self/stat cutime + cstime): nothing else runs as a child meanwhile.
 */

const ticksPerSecond = async () => Number((await promisify(execFile)("getconf", ["CLK_TCK"])).stdout.trim()) || 100;

async function childCpuTicks(): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8");
  // Fields after the command's closing parenthesis: state is field 3, cutime and cstime fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[13]) + Number(fields[14]);
}

async function cpuSecondsOf(work: () => Promise<unknown>, tick: number): Promise<number> {
  const before = await childCpuTicks();
  await work();
  return ((await childCpuTicks()) - before) / tick;
}

/** The ladder as the worker made it before issue 38: one ffmpeg run per rung, then one for the sound alone. */
async function perRungRuns(bins: Binaries, input: string, outDir: string, info: Awaited<ReturnType<typeof probe>>) {
  const signal = new AbortController().signal;
  const [first, second] = OPENING_SEGMENTS;
  const hls = (dir: string) => [
    ...["-f", "hls", "-hls_init_time", String(first), "-hls_time", String(second), "-hls_playlist_type", "vod"],
    ...["-hls_segment_filename", join(dir, "seg_%04d.ts"), join(dir, "index.m3u8")],
  ];
  const video = info.video ?? { width: 0, height: 0 };
  const landscape = video.width >= video.height;
  for (const rung of rungsFor(video)) {
    const dir = join(outDir, `${rung.height}p`);
    await mkdir(dir, { recursive: true });
    await run(
      bins.ffmpeg,
      [
        ...["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "error", "-threads", "1", "-i", input],
        ...["-map", "0:v:0", "-map", "0:a:0", "-c:a", "aac", "-b:a", `${rung.audio}k`, "-ac", String(rung.channels)],
        ...["-ar", "44100", "-threads", "1", "-vf", `scale=${landscape ? `-2:${rung.height}` : `${rung.height}:-2`}`],
        ...["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-pix_fmt", "yuv420p"],
        ...["-b:v", `${rung.video}k`, "-maxrate", `${Math.round(rung.video * 1.1)}k`, "-bufsize", `${rung.video * 2}k`],
        ...["-sc_threshold", "0", "-force_key_frames", KEY_FRAMES, ...hls(dir)],
      ],
      { signal },
    );
  }
  const audioDir = join(outDir, AUDIO_ONLY.name);
  await mkdir(audioDir, { recursive: true });
  await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "error", "-threads", "1", "-i", input],
      ...["-map", "0:a:0", "-vn", "-c:a", "aac", "-b:a", `${AUDIO_ONLY.audio}k`, "-ac", String(AUDIO_ONLY.channels)],
      ...["-ar", "44100", ...hls(audioDir)],
    ],
    { signal },
  );
}

/** CPU-seconds per minute of input for the whole ladder: one decode, and the per-rung runs it replaced. */
export async function ladderCpu(
  bins: Binaries,
  input: string,
  dir: string,
): Promise<{ oneDecode: number; perRung: number; inputSeconds: number }> {
  const tick = await ticksPerSecond();
  const signal = new AbortController().signal;
  const info = await probe(bins, input, signal);
  if (!info.video) throw new Error("the bench's input has no video");
  const withVideo = { ...info, video: info.video };
  const oneDecode = await cpuSecondsOf(
    () => transcodeVideo(bins, input, join(dir, "one-decode"), withVideo, { signal, threads: 1, onProgress: () => {} }),
    tick,
  );
  const perRung = await cpuSecondsOf(() => perRungRuns(bins, input, join(dir, "per-rung"), info), tick);
  const perMinute = (cpu: number) => cpu / (info.durationSeconds / 60);
  return { oneDecode: perMinute(oneDecode), perRung: perMinute(perRung), inputSeconds: info.durationSeconds };
}
