import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Binaries, loadBinaries, probe, run as runTool } from "./ffmpeg.ts";
import { transcodeVideo } from "./transcode.ts";

// Every ffmpeg run a transcode starts, counted: the ladder must come from one decode of the source.
vi.mock("./ffmpeg.ts", async (original) => {
  const actual = await original<typeof import("./ffmpeg.ts")>();
  return { ...actual, run: vi.fn(actual.run) };
});

/** What a weak connection fetches before the first frame: the poster and the first segment of the lowest rung. */

const run = promisify(execFile);
let bins: Binaries;
let dir: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  bins = await loadBinaries();
  dir = await mkdtemp(join(tmpdir(), "transcode-test-"));
  await run(bins.ffmpeg, [
    ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=8:size=854x480:rate=25"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", join(dir, "in.mp4")],
  ]);
}, 60_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a voice recorded in Chrome (WebM/Opus with no length in its header)", () => {
  it("is measured by decoding it, not taken as 0 seconds long", async () => {
    // Written to a pipe, as a browser's MediaRecorder writes it: the muxer cannot go back to fill in the length.
    const webm = join(dir, "voice.webm");
    await run("/bin/sh", [
      "-c",
      `"${bins.ffmpeg}" -hide_banner -loglevel error -f lavfi -i sine=duration=2 -c:a libopus -f webm pipe:1 > "${webm}"`,
    ]);
    const info = await probe(bins, webm, signal);
    expect(info.hasAudio).toBe(true);
    expect(info.durationSeconds).toBeCloseTo(2, 1);
  });
});

describe("a 480p video's renditions", { timeout: 60_000 }, () => {
  it("open with segments of 1 s and 2 s, then 4 s, with a poster no taller than 360 lines", async () => {
    const input = join(dir, "in.mp4");
    const info = await probe(bins, input, signal);
    const out = join(dir, "out");
    const { renditions } = await transcodeVideo(
      bins,
      input,
      out,
      { ...info, video: { width: 854, height: 480 } },
      {
        signal,
        threads: 1,
        onProgress: () => undefined,
      },
    );
    expect(renditions).toEqual([180, 240, 360, 480]);
    for (const height of renditions) {
      const playlist = await readFile(join(out, "hls", `${height}p`, "index.m3u8"), "utf8");
      const durations = [...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((m) => Number(m[1]));
      expect(durations.map((d) => Math.round(d))).toEqual([1, 2, 4, 1]);
    }
    // The first frame shown is the 240p rung's: a taller poster would only cost bytes before it.
    expect((await probe(bins, join(out, "poster.jpg"), signal)).video).toEqual({ width: 640, height: 360 });
    // The bundled ffprobe crashes (SIGSEGV) on an MPEG-TS segment: one is refused as unreadable without running it.
    await expect(probe(bins, join(out, "hls", "240p", "seg_0000.ts"), signal)).rejects.toMatchObject({
      reason: "unreadable",
      message: expect.stringMatching(/MPEG-TS/),
    });
  });
});

/** Each segment of a rendition: its bytes and seconds, read from its playlist and files. */
async function segmentsIn(folder: string) {
  const playlist = await readFile(join(folder, "index.m3u8"), "utf8");
  const names = playlist.split("\n").filter((line) => line.endsWith(".ts"));
  const seconds = [...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((m) => Number(m[1]));
  return Promise.all(
    names.map(async (name, i) => ({ bytes: (await readFile(join(folder, name))).length, seconds: seconds[i] ?? 0 })),
  );
}

/** A segment's frame size, from a frame of it (this static ffprobe build crashes on MPEG-TS files). */
async function frameSize(segment: string) {
  const frame = `${segment}.png`;
  await run(bins.ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-i", segment, "-frames:v", "1", frame]);
  return (await probe(bins, frame, signal)).video;
}

describe("a portrait 1080×1920 video with sound (issue 38)", { timeout: 120_000 }, () => {
  let out: string;
  let made: Awaited<ReturnType<typeof transcodeVideo>>;
  let runs: string[][];

  beforeAll(async () => {
    const input = join(dir, "portrait.mp4");
    await run(bins.ffmpeg, [
      ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=2:size=1080x1920:rate=12"],
      ...["-f", "lavfi", "-i", "sine=duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
      ...["-threads", "1", "-shortest", input],
    ]);
    const info = await probe(bins, input, signal);
    out = join(dir, "portrait");
    vi.mocked(runTool).mockClear();
    made = await transcodeVideo(
      bins,
      input,
      out,
      { ...info, video: { width: 1080, height: 1920 } },
      {
        signal,
        threads: 1,
        onProgress: () => undefined,
      },
    );
    runs = vi.mocked(runTool).mock.calls.map(([, args]) => args);
  }, 120_000);

  it("gets rungs by its short side, up to 720×1280, from one decode of the source", async () => {
    expect(made.renditions).toEqual([180, 240, 360, 480, 720]);
    expect(await frameSize(join(out, "hls", "720p", "seg_0000.ts"))).toEqual({ width: 720, height: 1280 });
    expect(await frameSize(join(out, "hls", "180p", "seg_0000.ts"))).toEqual({ width: 180, height: 320 });
    // One run reads the source for the whole ladder (the other reads one frame for the poster).
    const ladder = runs.filter((args) => args.includes("hls"));
    expect(ladder).toHaveLength(1);
    expect(ladder[0]?.filter((a) => a === "-i")).toHaveLength(1);
    expect(ladder[0]?.join(" ")).toContain("split=5");
  });

  it("lists the low rung and the sound alone, each declaring at least its measured peak", async () => {
    const master = await readFile(join(out, "hls", "master.m3u8"), "utf8");
    const variants = [...master.matchAll(/^#EXT-X-STREAM-INF:BANDWIDTH=(\d+)[^\n]*\n(\S+)$/gm)].map((m) => ({
      bandwidth: Number(m[1]),
      playlist: m[2] as string,
    }));
    expect(variants.map((v) => v.playlist)).toEqual([
      "180p/index.m3u8",
      "240p/index.m3u8",
      "360p/index.m3u8",
      "480p/index.m3u8",
      "720p/index.m3u8",
      "audio/index.m3u8",
    ]);
    expect(master).toContain("RESOLUTION=720x1280");
    expect(master).toMatch(/CODECS="mp4a\.40\.2"\naudio\/index\.m3u8/);
    for (const variant of variants) {
      const segments = await segmentsIn(join(out, "hls", variant.playlist.replace("/index.m3u8", "")));
      // Every segment long enough to be more than container overhead; the rate a player must sustain.
      const peak = Math.max(...segments.filter((s) => s.seconds >= 0.5).map((s) => (s.bytes * 8) / s.seconds));
      expect(variant.bandwidth, variant.playlist).toBeGreaterThanOrEqual(Math.floor(peak));
      // Measured, not the encoder's target: within a few percent of the peak.
      expect(variant.bandwidth, variant.playlist).toBeLessThanOrEqual(Math.ceil(peak) + 1);
    }
    // The sound alone costs a fraction of the lowest rung (mono AAC about 48 kbit/s).
    const audio = await segmentsIn(join(out, "hls", "audio"));
    const seconds = audio.reduce((a, s) => a + s.seconds, 0);
    expect(((made.sizes.audioOnly as number) * 8) / seconds).toBeLessThan(70_000);
  });

  it("records each mode's bytes: the top rung, the lowest rung, the sound alone", async () => {
    const bytes = async (name: string) => (await segmentsIn(join(out, "hls", name))).reduce((a, s) => a + s.bytes, 0);
    expect(made.sizes).toEqual({ best: await bytes("720p"), saveData: await bytes("180p"), audioOnly: await bytes("audio") });
    expect(made.sizes.saveData).toBeLessThan(made.sizes.best);
    expect(made.audioOnly).toBe(true);
  });
});
