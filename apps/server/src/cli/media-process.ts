// `npm run media:process`: enqueues a processing job (HLS renditions, a normalised voice copy) for every stored
// video and voice that has none, such as the seeded demo's or files stored before processing existed. The running
// servers' workers take the jobs (within 15 s); with the running configuration (DATABASE_URL, DATA_DIR, S3_*).
import { loadConfig } from "../config.ts";
import { migrateToLatest, openDatabase, SQLITE_BUSY_TIMEOUT_MS } from "../db/database.ts";
import { createFileStorage } from "../infrastructure/files/index.ts";
import { enqueueUnprocessed } from "../modules/media/backfill.ts";
import { runCli } from "./local-files.ts";

runCli("media:process", async () => {
  const config = loadConfig();
  const database = openDatabase(config.database, { busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS.command });
  try {
    await migrateToLatest(database);
    const storage = await createFileStorage(config.storage);
    const result = await enqueueUnprocessed({ db: database.db, storage });
    const videos = result.enqueued.filter((s) => s.kind === "video").length;
    console.log(
      `Enqueued ${result.enqueued.length} job(s): ${videos} video(s), ${result.enqueued.length - videos} voice(s); ` +
        `${result.existing} file(s) already had one` +
        (result.missing ? `; ${result.missing} row(s) point at a file not in storage.` : "."),
    );
    if (result.enqueued.length) console.log("A running server processes them, one at a time per replica.");
  } finally {
    await database.close();
  }
});
