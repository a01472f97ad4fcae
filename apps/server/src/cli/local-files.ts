import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Readable } from "node:stream";

/** What `npm run backup` writes into its folder, besides data/ (a copy of DATA_DIR's storage and keys). */
export const BACKUP_DB = "hikaya.db";
export const BACKUP_MANIFEST = "manifest.json";

/** A stored file under DATA_DIR/storage/<bucket>/<key>, as the local driver keeps it. */
export interface LocalFile {
  bucket: string;
  key: string;
  path: string;
}

// The local driver's content-type sidecars and the temporary files of interrupted writes are not objects.
const NOT_AN_OBJECT = /(\.__type|\.part|\.part\.type)$/;

/** Every object the local driver holds under `root` (DATA_DIR/storage), bucket by bucket. */
export async function* localFiles(root: string): AsyncGenerator<LocalFile> {
  const buckets = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const bucket of buckets) {
    if (!bucket.isDirectory()) continue;
    const dir = join(root, bucket.name);
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || NOT_AN_OBJECT.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      yield { bucket: bucket.name, key: relative(dir, path).split(sep).join("/"), path };
    }
  }
}

export async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest("hex");
}

export const sha256OfFile = (path: string) => sha256Of(createReadStream(path));

/** Wraps a script's main: a known problem prints one line and exits 1; anything else too, with its message. */
export function runCli(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
