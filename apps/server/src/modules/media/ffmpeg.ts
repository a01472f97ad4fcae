import { spawn } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { setPriority } from "node:os";
import type { MediaFailure } from "@hikaya/contracts";

/**
 * ffmpeg and ffprobe from the npm packages that ship them. Loaded on the first job, never at start-up (a server
 * with no media work does not pay for them; lazy-start.test.ts checks). The repository installs with
 * `ignore-scripts`, so the packages' own `chmod u+x` never ran: the execute bit is set here once.
 */
export interface Binaries {
  ffmpeg: string;
  ffprobe: string;
}

let binaries: Promise<Binaries> | null = null;

function executable(path: string): string {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, 0o755);
  }
  return path;
}

export function loadBinaries(): Promise<Binaries> {
  binaries ??= (async () => {
    const [ffmpeg, ffprobe] = await Promise.all([import("@ffmpeg-installer/ffmpeg"), import("@ffprobe-installer/ffprobe")]);
    return {
      ffmpeg: executable((ffmpeg.default ?? ffmpeg).path),
      ffprobe: executable((ffprobe.default ?? ffprobe).path),
    };
  })();
  binaries.catch(() => {
    binaries = null;
  });
  return binaries;
}

/** A job's failure with the reason the console shows (by code) and the detail the log keeps. */
export class MediaJobFailure extends Error {
  readonly reason: MediaFailure;
  constructor(reason: MediaFailure, detail: string) {
    super(detail);
    this.reason = reason;
  }
}

export interface RunOptions {
  /** Aborted when the job's time limit passes or the server closes: the process is killed. */
  signal: AbortSignal;
  /** ffmpeg's `-progress` lines: the microseconds written so far. */
  onProgress?: (outTimeMicros: number) => void;
}

/** The niceness ffmpeg and ffprobe run at (19: the lowest priority on Linux and macOS). */
export const LOWEST_PRIORITY = 19;

/**
 * util-linux's setpriv (in every Debian and most Linux systems) starts a tool with a parent-death signal: when the
 * server dies, even by kill -9, the kernel kills the tool too, instead of leaving a transcode running for up to an
 * hour beside the job's next attempt. Node cannot ask for that itself. Elsewhere the tool runs as it is.
 */
const SETPRIV = "/usr/bin/setpriv";
const parentDeathSignal = process.platform === "linux" && existsSync(SETPRIV);

/**
 * Runs a binary to completion, at the lowest CPU priority, dying with the server. Its stderr's last lines become the
 * failure's detail; an abort kills it (SIGKILL: ffmpeg may ignore SIGTERM while blocked on output) and fails with
 * the abort's reason.
 */
export function run(binary: string, args: string[], options: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(abortFailure(options.signal));
    // setpriv replaces itself with the tool (exec): the child's pid is the tool's.
    const child = parentDeathSignal
      ? spawn(SETPRIV, ["--pdeathsig", "KILL", "--", binary, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    // Requests come first: a transcode is background work that may take the CPU only when nobody is asking.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, LOWEST_PRIORITY);
      } catch {
        // A system that refuses (none we run on) only loses the courtesy.
      }
    }
    let stdout = "";
    let stderr = "";
    let pending = "";
    const onAbort = () => child.kill("SIGKILL");
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (!options.onProgress) {
        stdout += chunk;
        return;
      }
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const match = /^out_time_(?:us|ms)=(\d+)/.exec(line);
        if (match) options.onProgress(Number(match[1]));
      }
    });
    // Only the tail matters (the error); a long run must not grow memory.
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("error", (error) => {
      options.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", onAbort);
      if (options.signal.aborted) return reject(abortFailure(options.signal));
      if (code === 0) return resolve(stdout);
      const tail = stderr.trim().split("\n").slice(-3).join(" | ");
      reject(new MediaJobFailure("failed", `${binary.split("/").pop()} exited with ${code}: ${tail}`));
    });
  });
}

function abortFailure(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new MediaJobFailure("timed_out", "Stopped");
}

export interface Probe {
  durationSeconds: number;
  video: { width: number; height: number } | null;
  hasAudio: boolean;
}

/** MPEG-TS packets are 188 bytes, each starting with the sync byte 0x47. */
async function isMpegTs(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(189);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head[0] === 0x47 && head[188] === 0x47;
  } finally {
    await handle.close();
  }
}

/**
 * What ffprobe sees in a file; a file it cannot read fails as `unreadable`. An MPEG-TS file (what the app's own HLS
 * segments are) is never handed to it: the bundled ffprobe (@ffprobe-installer/linux-x64 5.2.0, the newest
 * published) dies with a segmentation fault on one, and no upload path accepts MPEG-TS, so such a file is refused as
 * unreadable without running it.
 */
export async function probe(bins: Binaries, file: string, signal: AbortSignal): Promise<Probe> {
  if (await isMpegTs(file)) throw new MediaJobFailure("unreadable", "MPEG-TS is not accepted (and not probed)");
  let out: string;
  try {
    out = await run(bins.ffprobe, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file], { signal });
  } catch (error) {
    if (error instanceof MediaJobFailure && error.reason === "failed")
      throw new MediaJobFailure("unreadable", `Not a readable media file: ${error.message}`);
    throw error;
  }
  const parsed = JSON.parse(out) as {
    format?: { duration?: string };
    streams?: {
      codec_type?: string;
      width?: number;
      height?: number;
      duration?: string;
      disposition?: { attached_pic?: number };
    }[];
  };
  const streams = parsed.streams ?? [];
  // A cover picture in an audio file is a "video" stream of one frame; it is not a video track.
  const video = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic && s.width && s.height);
  const stated = Number(parsed.format?.duration ?? video?.duration ?? 0);
  const hasAudio = streams.some((s) => s.codec_type === "audio");
  const durationSeconds =
    Number.isFinite(stated) && stated > 0
      ? stated
      : video || hasAudio
        ? await measureDuration(bins, file, video ? "v" : "a", signal)
        : 0;
  return {
    durationSeconds,
    video: video?.width && video.height ? { width: video.width, height: video.height } : null,
    hasAudio,
  };
}

/**
 * A file's length from its packets' times, for one whose header states none: what Chrome's MediaRecorder writes
 * (WebM/Opus, the family's recordings and voice notes on Android), since it cannot go back to fill the length in.
 * The packets are copied, not decoded (`-c copy`): an 11-minute voice reads in about 0.1 s where decoding took 0.3 s,
 * and an upload's hour of video in seconds, not minutes. A file with no frames measures 0 (and then fails as `empty`).
 */
async function measureDuration(bins: Binaries, file: string, stream: "v" | "a", signal: AbortSignal): Promise<number> {
  const out = await run(
    bins.ffmpeg,
    [
      ...["-hide_banner", "-nostdin", "-v", "error", "-i", file, "-map", `0:${stream}:0`, "-c", "copy"],
      ...["-f", "null", "-progress", "pipe:1", "-"],
    ],
    { signal },
  );
  const times = [...out.matchAll(/^out_time_us=(\d+)/gm)].map((m) => Number(m[1]));
  return (times.at(-1) ?? 0) / 1e6;
}
