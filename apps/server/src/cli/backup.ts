// `npm run backup -- <folder>`: a consistent copy of the SQLite database (SQLite's online backup, safe while
// the server runs) and of every file under DATA_DIR (stored files and keys) into <folder>, which must not
// exist yet or be empty. `npm run restore -- <folder>` puts one back (restore.ts).
//
// Order matters: the database is copied first, then the files. The app writes a file before the row that
// names it, so every row in the copy finds its file. (A file deleted between the two steps is the one case
// it misses; files added meanwhile are copied without a row, harmless.) On PostgreSQL use pg_dump and the
// bucket's own versioning instead (README "Backups").
import { copyFile, cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { ConfigError, loadConfig } from "../config.ts";
import { BACKUP_DB, BACKUP_MANIFEST, runCli, sha256OfFile } from "./local-files.ts";

/** Every file under `dir` except the temporary files of writes in progress, which may vanish any moment. */
async function copyTree(dir: string, to: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const copied: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || /\.part(\.type)?$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const target = join(to, relative(dir, path));
    await mkdir(dirname(target), { recursive: true });
    try {
      await copyFile(path, target);
      copied.push(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // deleted meanwhile
    }
  }
  return copied;
}

async function main() {
  const folder = process.argv[2];
  if (!folder) throw new ConfigError("Usage: backup <folder>");
  const out = resolve(folder);
  const config = loadConfig();
  if (config.database.kind !== "sqlite")
    throw new ConfigError("backup copies SQLite and DATA_DIR; on PostgreSQL use pg_dump and the bucket's versioning");
  if ((await readdir(out).catch(() => [])).length > 0) throw new ConfigError(`${out} is not empty: choose a new folder`);
  const started = Date.now();
  await mkdir(out, { recursive: true });

  const source = new SQLite(config.database.file, { readonly: true, fileMustExist: true });
  try {
    await source.backup(join(out, BACKUP_DB));
  } finally {
    source.close();
  }

  const data = join(out, "data");
  const stored = await copyTree(join(config.dataDir, "storage"), join(data, "storage"));
  await cp(join(config.dataDir, "keys"), join(data, "keys"), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  const files: Record<string, string> = {};
  for (const path of stored) files[relative(data, path)] = await sha256OfFile(path);
  await writeFile(
    join(out, BACKUP_MANIFEST),
    JSON.stringify({ createdAt: new Date().toISOString(), database: BACKUP_DB, files }, null, 2),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`Backed up the database and ${stored.length} files to ${out} in ${seconds} s.`);
}

runCli("backup", main);
