import type { ByteRange } from "../../infrastructure/files/index.ts";

/**
 * Parses a `Range` header for one byte range. Returns undefined to serve the whole object (no
 * header, several ranges, or a unit we do not serve) and "unsatisfiable" for a range outside it.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, startText = "", endText = ""] = match;
  if (startText === "" && endText === "") return undefined;
  if (startText === "") {
    const suffix = Number(endText);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(startText);
  const end = endText === "" ? size - 1 : Math.min(Number(endText), size - 1);
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}
