// `npm run bench [-- name …]`: every benchmark in one run, then one table of figures.
// Each area adds a module exporting one async function and a line below.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { failures, printTable } from "./lib.ts";

const benches: { name: string; file: string; fn: string }[] = [
  { name: "foundation", file: "foundation.ts", fn: "benchFoundation" },
  { name: "speed", file: "speed.ts", fn: "benchSpeed" },
  { name: "auth", file: "auth.ts", fn: "benchAuth" },
  { name: "program", file: "program.ts", fn: "benchProgram" },
  { name: "messages", file: "messages.ts", fn: "benchMessages" },
  { name: "start", file: "warm-start.ts", fn: "benchWarmStart" },
  { name: "inbox", file: "inbox.ts", fn: "benchInbox" },
  { name: "web", file: "web.ts", fn: "benchWeb" },
  { name: "lighthouse", file: "lighthouse.ts", fn: "benchLighthouse" },
  { name: "media", file: "media.ts", fn: "benchMedia" },
  { name: "scale", file: "scale-media.ts", fn: "benchScaleMedia" },
  { name: "scale", file: "scale-program.ts", fn: "benchScaleProgram" },
  { name: "scale", file: "scale.ts", fn: "benchScale" },
];

const only = process.argv.slice(2);
for (const b of benches) {
  if (only.length && !only.includes(b.name)) continue;
  const path = join(import.meta.dirname, b.file);
  if (!existsSync(path)) continue;
  const mod = (await import(path)) as Record<string, () => Promise<void>>;
  const run = mod[b.fn];
  if (!run) throw new Error(`${b.file} does not export ${b.fn}`);
  await run();
}
printTable();
if (failures.length)
  console.log(`\n${failures.length} figure(s) missed their goal beyond the measured noise:\n- ${failures.join("\n- ")}`);
process.exit(failures.length ? 1 : 0);
