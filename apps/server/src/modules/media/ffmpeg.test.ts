import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOWEST_PRIORITY, run } from "./ffmpeg.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ffmpeg-test-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a media tool's process", () => {
  it("runs at the lowest CPU priority, so requests keep the cores during a transcode", async () => {
    // The process reads its own niceness (field 19 of /proc/<pid>/stat) after a pause that outlasts the spawn.
    const stat = await run("/bin/sh", ["-c", "sleep 0.5; cat /proc/$$/stat"], { signal: new AbortController().signal });
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(Number(fields[16])).toBe(LOWEST_PRIORITY);
  });

  it("dies with the server, even one killed with kill -9, rather than run on beside the job's next attempt", async () => {
    // A server of its own that starts a long tool through `run`, which writes its pid down.
    const pidFile = join(dir, "tool.pid");
    const server = join(dir, "server.mjs");
    await writeFile(
      server,
      `import { run } from ${JSON.stringify(join(import.meta.dirname, "ffmpeg.ts"))};
       await run("/bin/sh", ["-c", "echo $$ > ${pidFile}; exec sleep 60"], { signal: new AbortController().signal });`,
    );
    const child = spawn(process.execPath, [server], { stdio: "ignore" });
    let pid = 0;
    await expect
      .poll(async () => (pid = Number(await readFile(pidFile, "utf8").catch(() => "0"))), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(alive(pid)).toBe(true);
    child.kill("SIGKILL");
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });
});
