import { describe, expect, it } from "vitest";
import { declaredTracks, isAudioOnly } from "./media-tracks.ts";
import { mp4, webm } from "./test-fixtures.ts";

describe("declaredTracks", () => {
  it("reads the track kinds of a WebM's Tracks element", () => {
    expect(declaredTracks("matroska", webm(["audio"]))).toEqual(["audio"]);
    expect(declaredTracks("matroska", webm(["video", "audio"]))).toEqual(["video", "audio"]);
  });

  it("reads the handler of each MP4 track", () => {
    expect(declaredTracks("mp4", mp4(["soun"]))).toEqual(["audio"]);
    expect(declaredTracks("mp4", mp4(["vide", "soun"], { brand: "isom" }))).toEqual(["video", "audio"]);
  });

  it("answers null when the track list is cut off or missing, never a guess", () => {
    const video = webm(["audio", "video"]);
    const tracksAt = video.indexOf(Buffer.from([0x16, 0x54, 0xae, 0x6b]));
    expect(declaredTracks("matroska", video.subarray(0, tracksAt + 20))).toBeNull();
    const movie = mp4(["soun", "vide"], { brand: "isom" });
    expect(declaredTracks("mp4", movie.subarray(0, movie.indexOf("moov") + 40))).toBeNull();
    expect(declaredTracks("matroska", Buffer.from("not ebml at all"))).toBeNull();
    expect(declaredTracks("mp4", Buffer.alloc(3))).toBeNull();
  });

  it("calls a file audio only with an audio track and no video track", () => {
    expect(isAudioOnly(["audio"])).toBe(true);
    expect(isAudioOnly(["audio", "other"])).toBe(true);
    expect(isAudioOnly(["audio", "video"])).toBe(false);
    expect(isAudioOnly([])).toBe(false);
    expect(isAudioOnly(null)).toBe(false);
  });
});
