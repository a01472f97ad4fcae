import { describe, expect, it } from "vitest";
import { embedFor } from "./embed.ts";
import { afterQuestions, afterRecording, cardLook, formatSeconds, parseIndex, saveRequiresUpload } from "./journey-rules.ts";

describe("story card look (spec section 4)", () => {
  it("follows watchStatus, with a default look for anything else", () => {
    expect(cardLook("Active")).toBe("active");
    expect(cardLook("Deleted")).toBe("watched");
    expect(cardLook("Locked")).toBe("locked");
    expect(cardLook("Paused")).toBe("other");
    expect(cardLook(undefined)).toBe("other");
  });
});

describe("thresholds (spec section 9)", () => {
  it("sends index 1 to add website and index 2 on to recording", () => {
    expect(afterQuestions("s", 1)).toBe("/add-website/s/1");
    expect(afterQuestions("s", 2)).toBe("/start-recording/s/2");
    expect(afterQuestions("s", 3)).toBe("/start-recording/s/3");
  });

  it("requires the upload above index 2", () => {
    expect(saveRequiresUpload(2)).toBe(false);
    expect(saveRequiresUpload(3)).toBe(true);
  });

  it("opens the second recording screen above index 16", () => {
    expect(afterRecording("s", 16)).toBe("/");
    expect(afterRecording("s", 17)).toBe("/start-recording2/s/17");
  });
});

describe("route index", () => {
  it("accepts whole numbers from 1 to the last story's order", () => {
    expect(parseIndex("1", [1, 2, 3])).toBe(1);
    expect(parseIndex("3", [1, 2, 3])).toBe(3);
    expect(parseIndex("4", [1, 2, 3])).toBeNull();
    expect(parseIndex("0", [1, 2, 3])).toBeNull();
    expect(parseIndex("-1", [1, 2, 3])).toBeNull();
    expect(parseIndex("2.5", [1, 2, 3])).toBeNull();
    expect(parseIndex("abc", [1, 2, 3])).toBeNull();
    expect(parseIndex(undefined, [1])).toBeNull();
  });
});

describe("recorder counter", () => {
  it("reads mm:ss", () => {
    expect(formatSeconds(0)).toBe("00:00");
    expect(formatSeconds(9)).toBe("00:09");
    expect(formatSeconds(75)).toBe("01:15");
    expect(formatSeconds(600)).toBe("10:00");
  });
});

describe("external story videos", () => {
  const origin = "https://hikaya.example";

  it("plays YouTube through youtube-nocookie.com", () => {
    for (const url of [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://youtu.be/dQw4w9WgXcQ",
      "https://youtube.com/shorts/dQw4w9WgXcQ",
    ]) {
      const e = embedFor(url, origin);
      expect(e.kind).toBe("youtube");
      expect(e.src).toMatch(/^https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ\?/);
      expect(e.src).toContain("playsinline=1");
    }
  });

  it("plays Vimeo with do-not-track", () => {
    const e = embedFor("https://vimeo.com/76979871", origin);
    expect(e.kind).toBe("vimeo");
    expect(e.src).toMatch(/^https:\/\/player\.vimeo\.com\/video\/76979871\?.*dnt=1/);
  });

  it("plays uploaded files natively", () => {
    expect(embedFor("/storage/v1/object/public/videos/story-01.mp4", origin)).toEqual({
      kind: "file",
      src: "/storage/v1/object/public/videos/story-01.mp4",
    });
    expect(embedFor("https://cdn.example/v.mp4", origin)).toEqual({ kind: "file", src: "https://cdn.example/v.mp4" });
  });
});
