import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where an upload waits while it is measured (a voice's length, a video's picture) before storage keeps it: a
 * folder of its own under the system's temporary folder, removed when `use` ends however it ends. The name shares
 * the media work folders' prefix, so the media module's periodic sweep removes one a killed server left behind.
 */
export const SPOOL_PREFIX = "hikaya-media-upload-";

export async function withSpool<T>(use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), SPOOL_PREFIX));
  try {
    return await use(join(dir, "upload"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
