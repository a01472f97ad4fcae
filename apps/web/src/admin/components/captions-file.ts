import { captionsProblem } from "@hikaya/contracts";

/**
 * An uploaded captions file as the WebVTT text the editor keeps: a WebVTT file as it is, a SubRip (.srt) file
 * converted (the `WEBVTT` header, `,` → `.` in the times, the cues' sequence numbers dropped), anything else null
 * (the editor refuses it and keeps what it had). SubRip is what most subtitle tools and translators hand over.
 */
export function captionsFromFile(text: string): string | null {
  // A file too large to be captions keeps its text: the editor then says so.
  if (captionsProblem(text) !== "not_webvtt") return text;
  return srtToWebVtt(text);
}

/** `h:mm:ss,mmm --> h:mm:ss,mmm` and what may follow it (SubRip's rarely used positions are dropped). */
const SRT_TIMING = /^(\d{1,3}):(\d{2}):(\d{2})[,.](\d{1,3})[ \t]*-->[ \t]*(\d{1,3}):(\d{2}):(\d{2})[,.](\d{1,3})(?:[ \t].*)?$/;

const vttTime = (h: string, m: string, s: string, ms: string) => `${h.padStart(2, "0")}:${m}:${s}.${ms.padEnd(3, "0")}`;

/** A SubRip text as WebVTT, or null when it is not SubRip (a block without its timing line, or no cue at all). */
export function srtToWebVtt(text: string): string | null {
  const blocks = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/)
    .map((block) => block.replace(/^(?:[ \t]*\n)+/, "").replace(/(?:\n[ \t]*)+$/, ""))
    .filter((block) => block.trim() !== "")
    .map((block) => block.split("\n"));
  if (blocks.length === 0) return null;
  const cues: string[] = [];
  for (const lines of blocks) {
    const timingAt = /^\d+$/.test(lines[0]?.trim() ?? "") ? 1 : 0;
    const timing = SRT_TIMING.exec(lines[timingAt]?.trim() ?? "");
    if (!timing) return null;
    const [, h1, m1, s1, ms1, h2, m2, s2, ms2] = timing as unknown as string[];
    const start = vttTime(h1 as string, m1 as string, s1 as string, ms1 as string);
    const end = vttTime(h2 as string, m2 as string, s2 as string, ms2 as string);
    cues.push([`${start} --> ${end}`, ...lines.slice(timingAt + 1)].join("\n"));
  }
  return `WEBVTT\n\n${cues.join("\n\n")}\n`;
}
