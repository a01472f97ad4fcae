import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Binaries, loadBinaries, probe } from "./ffmpeg.ts";
import { transcodeVideo } from "./transcode.ts";

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
    expect(renditions).toEqual([240, 360, 480]);
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
