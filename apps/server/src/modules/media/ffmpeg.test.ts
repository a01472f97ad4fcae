import { describe, expect, it } from "vitest";
import { LOWEST_PRIORITY, run } from "./ffmpeg.ts";

describe("a media tool's process", () => {
  it("runs at the lowest CPU priority, so requests keep the cores during a transcode", async () => {
    // The process reads its own niceness (field 19 of /proc/<pid>/stat) after a pause that outlasts the spawn.
    const stat = await run("/bin/sh", ["-c", "sleep 0.5; cat /proc/$$/stat"], { signal: new AbortController().signal });
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(Number(fields[16])).toBe(LOWEST_PRIORITY);
  });
});
