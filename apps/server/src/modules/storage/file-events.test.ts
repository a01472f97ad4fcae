import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileEvents, type StoredFile } from "./file-events.ts";

const file: StoredFile = { bucket: "recordings", key: "u/1", contentType: "audio/webm", use: { kind: "recording" } };

describe("the file-stored hook", () => {
  it("tells each listener in turn and waits for them; a removed listener hears nothing", async () => {
    const events = new FileEvents();
    const heard: string[] = [];
    events.onFileStored(async (f) => {
      await new Promise((r) => setTimeout(r, 20));
      heard.push(`first ${f.key}`);
    });
    const off = events.onFileStored(async (f) => {
      heard.push(`second ${f.key}`);
    });
    await events.fileStored(file);
    expect(heard).toEqual(["first u/1", "second u/1"]);
    off();
    await events.fileStored({ ...file, key: "u/2" });
    expect(heard).toEqual(["first u/1", "second u/1", "first u/2"]);
  });

  it("is how storage reaches media: no storage file imports the media module (issue 42)", () => {
    const dir = import.meta.dirname;
    const importers = readdirSync(dir)
      .filter((name) => name.endsWith(".ts"))
      .filter((name) => /from "\.\.\/media\//.test(readFileSync(join(dir, name), "utf8")));
    expect(importers).toEqual([]);
  });
});
