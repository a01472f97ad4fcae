import { encode, renderSVG } from "uqr";
import { describe, expect, it } from "vitest";
import { QR_OPTIONS, qrSvgOf } from "./keepsake.service.ts";

/** The dark cells an SVG of qrSvgOf's shape draws: a row starts `M x y.5`, then each `h n` draws n cells and each
 * `m gap 0` moves on along the row. */
function drawnCells(svg: string): Set<string> {
  const cells = new Set<string>();
  const [, runs = ""] = /<path stroke="#000" d="([^"]*)"\/><\/svg>$/.exec(svg) ?? [];
  let x = 0;
  let y = "";
  for (const [, command, a = "", b = ""] of runs.matchAll(/([Mmh])(\d+)(?: (\d+)(?:\.5)?)?/g)) {
    if (command === "M") [x, y] = [Number(a), b];
    else if (command === "m") x += Number(a);
    else for (const end = x + Number(a); x < end; x++) cells.add(`${x},${y}`);
  }
  return cells;
}

describe("a share link's QR code", () => {
  it("draws exactly the dark modules of the code, in a viewBox with its quiet zone", async () => {
    const url = "https://hikaya.example/k/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
    const svg = await qrSvgOf(url);
    const { data, size } = encode(url, QR_OPTIONS);
    const dark = new Set(data.flatMap((row, y) => row.flatMap((on, x) => (on ? [`${x},${y}`] : []))));
    expect(dark.size).toBeGreaterThan(300);
    expect(drawnCells(svg)).toEqual(dark);
    expect(svg).toContain(`viewBox="0 0 ${size} ${size}"`);
    // The quiet zone: no dark module on the two outer rows and columns.
    expect([...dark].some((cell) => cell.split(",").some((n) => Number(n) < 2 || Number(n) >= size - 2))).toBe(false);
    expect(svg.length).toBeLessThan(renderSVG(url, QR_OPTIONS).length / 3);
  });
});
