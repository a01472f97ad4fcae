import type { FastifyBaseLogger } from "fastify";
import type { App, AppDeps } from "../../deps.ts";
import { listPublicStoryMedia, repointMedia } from "./storage.repository.ts";
import { sweepStorage } from "./storage-sweep.ts";
import { privateMediaRef, releaseFiles } from "./story-media.ts";

/**
 * Story media stored before they were private (public buckets, guessable names such as `story-05.mp4`) move to
 * the private bucket under random names, their rows are repointed, and the public copies go. Runs at start-up;
 * does nothing once done. Two replicas starting at once each copy, only one repoints a row, the sweep removes
 * the other copy.
 */
export async function moveStoryMediaPrivate(
  deps: Pick<AppDeps, "db" | "storage" | "fileEvents">,
  log: FastifyBaseLogger,
): Promise<number> {
  const rows = await listPublicStoryMedia(deps.db);
  if (rows.length === 0) return 0;
  const copies = new Map<string, string>();
  let moved = 0;
  for (const row of rows) {
    let ref = copies.get(row.path);
    if (!ref) {
      try {
        ref = await privateMediaRef(deps, row.path, row.column);
      } catch (error) {
        log.warn({ table: row.table, id: row.id, path: row.path, err: error }, "story media could not be made private");
        continue;
      }
      copies.set(row.path, ref);
    }
    if (await repointMedia(deps.db, row, row.path, ref)) moved++;
  }
  await releaseFiles(deps, [...copies.keys(), ...copies.values()]);
  log.info({ moved }, "story media moved to private storage");
  return moved;
}

const FIRST_SWEEP_DELAY_MS = 10_000;

/** The storage sweep (storage-sweep.ts) 10 s after the server is ready, then every `intervalMinutes` (0: that once). */
export function startStorageSweep(app: App, intervalMinutes: number) {
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let first: NodeJS.Timeout | undefined;
  const run = () => {
    if (running) return;
    running = sweepStorage(app.deps)
      .then((result) => {
        if (result.removedOrphans || result.removedTemp) app.log.info(result, "storage swept");
      })
      .catch((error: unknown) => app.log.warn({ err: error }, "storage sweep failed; it runs again later"))
      .finally(() => {
        running = null;
      });
  };
  app.addHook("onReady", async () => {
    // Not at once: listing every stored file would compete with start-up for the one thread.
    first = setTimeout(run, FIRST_SWEEP_DELAY_MS).unref();
    if (intervalMinutes > 0) timer = setInterval(run, intervalMinutes * 60_000).unref();
  });
  app.addHook("onClose", async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  });
}
