import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { INSTRUCTION_LOCATIONS } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";

// What the family reads in Arabic, checked across every namespace of the users' app (the console's own wording,
// admin.json, is its own).

type Tree = { [key: string]: string | Tree };
const read = (lang: "en" | "ar", file: string) => JSON.parse(readFileSync(join(import.meta.dirname, lang, file), "utf8")) as Tree;
const files = readdirSync(join(import.meta.dirname, "en")).filter((f) => f.endsWith(".json") && f !== "admin.json");

/** Every string with its dotted key and namespace. */
function leaves(tree: Tree, prefix = ""): [string, string][] {
  return Object.entries(tree).flatMap(([k, v]) => (typeof v === "string" ? [[`${prefix}${k}`, v]] : leaves(v, `${prefix}${k}.`)));
}
const pairs = files.flatMap((file) => {
  const ar = new Map(leaves(read("ar", file)));
  return leaves(read("en", file)).map(([key, en]) => ({ key: `${file}:${key}`, en, ar: ar.get(key) ?? "" }));
});

describe("Arabic wording", () => {
  it("says 'Go To Stories' one way everywhere", () => {
    const renderings = new Set(pairs.filter((p) => /^go to stories$/i.test(p.en)).map((p) => p.ar));
    expect([...renderings]).toEqual(["الذهاب إلى القصص"]);
  });

  it("puts no '+' or '-' after a number at the end, where right-to-left text shows it before the number", () => {
    expect(pairs.filter((p) => /\d[+-]$/.test(p.ar)).map((p) => `${p.key}: ${p.ar}`)).toEqual([]);
  });

  it("names every instruction video in Arabic, so a screen reader does not read its English name", () => {
    const locations = read("ar", "stories.json").instruction as Tree;
    for (const location of INSTRUCTION_LOCATIONS) {
      const name = (locations.locations as Tree | undefined)?.[location];
      expect(name, location).toMatch(/[\u0600-\u06ff]/);
    }
  });

  it("tells of the keyboard's Space and Enter only in the hint shown with a fine pointer", () => {
    expect(pairs.filter((p) => /space or enter/i.test(p.en)).map((p) => p.key)).toEqual(["stories.json:recording.keyHint"]);
  });
});
