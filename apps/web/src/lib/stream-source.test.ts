import { describe, expect, it, vi } from "vitest";
import { attachSource, fetchMediaStream, HLS_TYPE, type HlsModule, modeSize, prefetchHls } from "./stream-source.ts";

const ORIGINAL = "/storage/v1/object/sign/story-media/a.mp4?expires=1&signature=s";
const STREAM = {
  hls: "/storage/v1/object/stream/story-media/1/s/a.mp4.media/hls/master.m3u8",
  audioOnly: "/storage/v1/object/stream/story-media/1/s/a.mp4.media/hls/audio/index.m3u8",
  poster: null,
  durationSeconds: 2,
};

function fakeVideo(native: boolean) {
  return {
    src: "",
    canPlayType: (type: string) => (native && type === HLS_TYPE ? "maybe" : ""),
    play: vi.fn(async () => undefined),
  } as unknown as HTMLVideoElement;
}

/** A stand-in for hls.js that records what the player asked of it and lets the test raise its errors. */
function fakeHls(supported = true) {
  const created: {
    config: unknown;
    source?: string;
    media?: unknown;
    destroyed: boolean;
    fail?: () => void;
    capping: number;
  }[] = [];
  class Hls {
    static isSupported = () => supported;
    static Events = { ERROR: "hlsError" };
    record: (typeof created)[number];
    constructor(config: unknown) {
      this.record = { config, destroyed: false, capping: -1 };
      created.push(this.record);
    }
    set autoLevelCapping(level: number) {
      this.record.capping = level;
    }
    on(_event: string, listener: (event: string, data: { fatal: boolean }) => void) {
      this.record.fail = () => listener("hlsError", { fatal: true });
    }
    loadSource(url: string) {
      this.record.source = url;
    }
    attachMedia(media: unknown) {
      this.record.media = media;
    }
    destroy() {
      this.record.destroyed = true;
    }
  }
  return { created, load: async () => Hls as unknown as HlsModule };
}

describe("the story player's source", () => {
  it("plays the original file while the video has no processed stream, without loading hls.js", async () => {
    const video = fakeVideo(false);
    const load = vi.fn();
    await attachSource(video, ORIGINAL, { hls: null, poster: null, durationSeconds: null }, load);
    expect(video.src).toBe(ORIGINAL);
    expect(load).not.toHaveBeenCalled();
  });

  it("hands the playlist to a browser that plays HLS itself", async () => {
    const video = fakeVideo(true);
    const load = vi.fn();
    await attachSource(video, ORIGINAL, STREAM, load);
    expect(video.src).toBe(STREAM.hls);
    expect(load).not.toHaveBeenCalled();
  });

  it("elsewhere streams through hls.js from the lowest rendition, and falls back to the original if it fails", async () => {
    const video = fakeVideo(false);
    const hls = fakeHls();
    const detach = await attachSource(video, ORIGINAL, STREAM, hls.load);
    expect(hls.created).toHaveLength(1);
    expect(hls.created[0]).toMatchObject({ config: { startLevel: 0 }, source: STREAM.hls, media: video });
    hls.created[0]?.fail?.();
    expect(hls.created[0]?.destroyed).toBe(true);
    expect(video.src).toBe(ORIGINAL);
    expect(video.play).toHaveBeenCalled();
    detach();
  });

  it("plays the original where neither native HLS nor Media Source is available", async () => {
    const video = fakeVideo(false);
    const hls = fakeHls(false);
    await attachSource(video, ORIGINAL, STREAM, hls.load);
    expect(hls.created).toHaveLength(0);
    expect(video.src).toBe(ORIGINAL);
  });

  it("asks for hls.js before the stream's answer only where hls.js would play it", () => {
    const load = vi.fn(async () => fakeHls().load());
    vi.stubGlobal("MediaSource", class {});
    try {
      prefetchHls(fakeVideo(true), load as never);
      expect(load).not.toHaveBeenCalled(); // Safari plays HLS itself
      prefetchHls(fakeVideo(false), load as never);
      expect(load).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
    expect("MediaSource" in globalThis).toBe(false);
    prefetchHls(fakeVideo(false), load as never);
    expect(load).toHaveBeenCalledTimes(1); // no Media Source: the original file plays, hls.js is not needed
  });
});

describe("the person's viewing mode (issue 38)", () => {
  it("climbs freely and buffers as hls.js likes in best quality", async () => {
    const hls = fakeHls();
    await attachSource(fakeVideo(false), ORIGINAL, STREAM, hls.load, "best");
    expect(hls.created[0]).toMatchObject({ source: STREAM.hls, capping: -1 });
    expect(hls.created[0]?.config).not.toHaveProperty("maxBufferLength");
  });

  it("keeps to the lowest rung and buffers at most 30 s ahead when saving data", async () => {
    const hls = fakeHls();
    await attachSource(fakeVideo(false), ORIGINAL, STREAM, hls.load, "save_data");
    expect(hls.created[0]).toMatchObject({
      source: STREAM.hls,
      capping: 0,
      config: { startLevel: 0, maxBufferLength: 30, maxMaxBufferLength: 30, capLevelToPlayerSize: false },
    });
  });

  it("plays the sound alone through hls.js or natively, and the lowest rung of a stream that has none", async () => {
    const hls = fakeHls();
    await attachSource(fakeVideo(false), ORIGINAL, STREAM, hls.load, "audio_only");
    expect(hls.created[0]).toMatchObject({ source: STREAM.audioOnly, config: { maxBufferLength: 30 } });
    const native = fakeVideo(true);
    await attachSource(native, ORIGINAL, STREAM, hls.load, "audio_only");
    expect(native.src).toBe(STREAM.audioOnly);
    const older = fakeVideo(true);
    await attachSource(older, ORIGINAL, { ...STREAM, audioOnly: null }, hls.load, "audio_only");
    expect(older.src).toBe(STREAM.hls);
  });

  it("costs each mode its own bytes, and the lowest rung's for the sound alone of a stream that has none", () => {
    const sizes = { best: 4_000_000, saveData: 900_000, audioOnly: 300_000 };
    expect(modeSize("best", sizes)).toBe(4_000_000);
    expect(modeSize("save_data", sizes)).toBe(900_000);
    expect(modeSize("audio_only", sizes)).toBe(300_000);
    expect(modeSize("audio_only", { ...sizes, audioOnly: null })).toBe(900_000);
  });
});

describe("a story downloaded for offline", () => {
  const PLAYLIST = "/offline/s1/q0/index.m3u8";

  it("plays its kept rung, a playlist given as the file, through hls.js even where the browser plays HLS itself", async () => {
    // The service worker answers /offline/… only for requests that reach it; a browser's own HLS player may not.
    vi.stubGlobal("MediaSource", class {});
    try {
      const video = fakeVideo(true);
      const hls = fakeHls();
      await attachSource(video, PLAYLIST, null, hls.load);
      expect(hls.created[0]?.source).toBe(PLAYLIST);
      expect(video.src).toBe("");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("plays a kept original file as it is, and asks the server nothing about it", async () => {
    const video = fakeVideo(false);
    const load = vi.fn();
    await attachSource(video, "/offline/s1/video/original", null, load);
    expect(video.src).toBe("/offline/s1/video/original");
    expect(load).not.toHaveBeenCalled();
    const fetcher = vi.fn();
    vi.stubGlobal("fetch", fetcher);
    try {
      expect(await fetchMediaStream("/offline/s1/video/original")).toBeNull();
      expect(fetcher).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
