import { describe, expect, it } from "vitest";
import { captionsFromFile, srtToWebVtt } from "./captions-file.ts";

const SRT =
  "\uFEFF1\r\n00:00:01,000 --> 00:00:04,250\r\nمرحبا بكم\r\n\r\n2\r\n00:00:05,5 --> 01:02:03,040\r\nSecond line\r\nand its next\r\n\r\n";

describe("captions files uploaded in the console", () => {
  it("converts SubRip to WebVTT: header, '.' in the times, no sequence numbers, lines kept", () => {
    expect(srtToWebVtt(SRT)).toBe(
      "WEBVTT\n\n00:00:01.000 --> 00:00:04.250\nمرحبا بكم\n\n00:00:05.500 --> 01:02:03.040\nSecond line\nand its next\n",
    );
  });

  it("takes cues without a sequence number and one-digit hours, with or without a last line break", () => {
    expect(srtToWebVtt("0:00:01,000 --> 0:00:02,000\nHi")).toBe("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n");
    expect(srtToWebVtt("1\n00:00:01,000 --> 00:00:02,000\nHi\n")).toBe("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n");
  });

  it("keeps a WebVTT file as it is and converts a SubRip one", () => {
    const vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\nHello\n";
    expect(captionsFromFile(vtt)).toBe(vtt);
    expect(captionsFromFile(SRT)).toMatch(/^WEBVTT\n\n00:00:01\.000 --> /);
  });

  it("refuses what is neither: plain text, a block without its timing, an empty file", () => {
    expect(captionsFromFile("Just some notes\nabout the video")).toBeNull();
    expect(captionsFromFile("1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\nno timing here")).toBeNull();
    expect(captionsFromFile("")).toBeNull();
    expect(captionsFromFile("1\n00:00:01 --> 00:00:02\nHi")).toBeNull();
  });
});
