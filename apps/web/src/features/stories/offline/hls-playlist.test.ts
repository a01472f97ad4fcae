import { describe, expect, it } from "vitest";
import { lowestRung, rewriteMediaPlaylist } from "./hls-playlist.ts";

const base = "https://hikaya.test/storage/v1/object/stream/story-media/1795905000/sig/key.media/hls/";

// As modules/media/transcode.ts writes it: rungs by height, the sound alone last.
const master = [
  "#EXTM3U",
  "#EXT-X-VERSION:3",
  "#EXT-X-INDEPENDENT-SEGMENTS",
  '#EXT-X-STREAM-INF:BANDWIDTH=420000,RESOLUTION=426x240,CODECS="avc1.42c015,mp4a.40.2"',
  "240p/index.m3u8",
  '#EXT-X-STREAM-INF:BANDWIDTH=250000,RESOLUTION=320x180,CODECS="avc1.42c00d,mp4a.40.2"',
  "180p/index.m3u8",
  '#EXT-X-STREAM-INF:BANDWIDTH=60000,CODECS="mp4a.40.2"',
  "audio/index.m3u8",
  "",
].join("\n");

describe("the rung a download keeps", () => {
  it("is the picture with the lowest bandwidth, never the sound alone", () => {
    expect(lowestRung(master, `${base}master.m3u8`)).toBe(`${base}180p/index.m3u8`);
  });

  it("is none in a master without a picture", () => {
    expect(lowestRung('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="mp4a.40.2"\naudio/index.m3u8\n', base)).toBeNull();
  });
});

describe("a downloaded media playlist", () => {
  it("names its segments and init section beside it, and fetches them from their own addresses", () => {
    const media = [
      "#EXTM3U",
      '#EXT-X-MAP:URI="init.mp4"',
      "#EXTINF:1.0,",
      "seg_0000.ts",
      "#EXTINF:2.0,",
      "https://cdn.test/x/seg_0001.ts?token=abc",
      "#EXT-X-ENDLIST",
    ].join("\n");
    const { text, files } = rewriteMediaPlaylist(media, `${base}180p/index.m3u8`);
    expect(text).toBe(
      ["#EXTM3U", '#EXT-X-MAP:URI="0.mp4"', "#EXTINF:1.0,", "1.ts", "#EXTINF:2.0,", "2.ts", "#EXT-X-ENDLIST"].join("\n"),
    );
    expect(files).toEqual([
      { from: `${base}180p/init.mp4`, name: "0.mp4" },
      { from: `${base}180p/seg_0000.ts`, name: "1.ts" },
      { from: "https://cdn.test/x/seg_0001.ts?token=abc", name: "2.ts" },
    ]);
  });
});
