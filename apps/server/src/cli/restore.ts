// `npm run restore -- <folder>`: puts a backup made by `npm run backup` into an empty DATA_DIR (and the
// SQLite file the configuration names), checking every file against the backup's checksums. Stop the
// server first; it refuses a DATA_DIR that already holds a database or files, and changes nothing then.
import { cp, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError, loadConfig } from "../config.ts";
import { BACKUP_DB, BACKUP_MANIFEST, runCli, sha256OfFile } from "./local-files.ts";

async function main() {
  const folder = process.argv[2];
  if (!folder) throw new ConfigError("Usage: restore <folder>");
  const from = resolve(folder);
  const config = loadConfig();
  if (config.database.kind !== "sqlite")
    throw new ConfigError("restore writes SQLite and DATA_DIR; DATABASE_URL names PostgreSQL");
  const manifest = JSON.parse(
    await readFile(join(from, BACKUP_MANIFEST), "utf8").catch(() => {
      throw new ConfigError(`${from} is not a backup (no ${BACKUP_MANIFEST})`);
    }),
  ) as { files: Record<string, string> };
  const present = await stat(config.database.file).then(
    () => true,
    () => false,
  );
  const busy = (await readdir(config.dataDir).catch(() => [])).filter((n) => n !== ".gitkeep");
  if (present || busy.length > 0) throw new ConfigError(`${config.dataDir} is not empty: restore goes into an empty DATA_DIR`);

  await mkdir(dirname(config.database.file), { recursive: true });
  await cp(join(from, BACKUP_DB), config.database.file);
  await cp(join(from, "data"), config.dataDir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  for (const [path, sum] of Object.entries(manifest.files)) {
    if ((await sha256OfFile(join(config.dataDir, path))) !== sum) throw new Error(`Checksum mismatch for ${path}`);
  }
  console.log(`Restored the database and ${Object.keys(manifest.files).length} files into ${config.dataDir}.`);
}

runCli("restore", main);
