// `npm run backup` while the server keeps writing, then `npm run restore` into a new DATA_DIR. SQLite and
// DATA_DIR are what these commands are for, so both dialect passes run it on SQLite.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import { multipart as formOf, wavBytes } from "../modules/messages/messages.test-helpers.ts";
import { activePerson, runCommand, whatTheyFind } from "../test/cli-commands.ts";

const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `hikaya-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const envFor = (dataDir: string) => ({
  DATA_DIR: dataDir,
  SEED_DEMO: "true",
  AUTH_SCRYPT_LOG_N: "12",
  LOG_LEVEL: "silent",
  WEB_DIST_DIR: join(dataDir, "no-web"),
  RATE_LIMIT_FACTOR: "100",
  AUTH_RATE_LIMIT_FACTOR: "100",
});

describe("npm run backup / npm run restore (SQLite and DATA_DIR)", () => {
  it("backs up a server under write load; the restore holds every acknowledged row and file", async () => {
    const dataDir = tempDir("live");
    const app = await buildApp(loadConfig(envFor(dataDir)), { logger: false });
    const person = await activePerson(app);
    const acknowledged: { id: string; audio: boolean; at: number }[] = [];
    let writing = true;
    let n = 0;
    // Two writers: text messages and voice notes (a file, then its row), as fast as the server takes them.
    const writer = async (audio: boolean) => {
      while (writing) {
        const i = n++;
        const form = await formOf(
          audio
            ? { message: "audio", messageType: "audio", durationSeconds: "0.2" }
            : { message: `load ${i}`, messageType: "text" },
          audio ? { bytes: wavBytes(0.2, i) } : undefined,
        );
        const res = await app.inject({
          method: "POST",
          url: "/api/message/send",
          headers: { authorization: `Bearer ${person.token}`, ...form.headers },
          payload: form.payload,
        });
        if (res.statusCode === 200)
          acknowledged.push({ id: (res.json() as { data: ChatMessage }).data._id, audio, at: Date.now() });
      }
    };
    const writers = [writer(false), writer(true)];
    while (acknowledged.filter((a) => a.audio).length < 3) await new Promise((r) => setTimeout(r, 20));
    const backupDir = join(tempDir("backup"), "copy");
    const startedAt = Date.now();
    const backup = await runCommand("backup", [backupDir], envFor(dataDir));
    writing = false;
    await Promise.all(writers);
    await app.close();
    expect(backup.stderr).toBe("");
    expect(backup.stdout).toMatch(/^Backed up the database and \d+ files to .* in [\d.]+ s\.\n$/);
    const before = acknowledged.filter((a) => a.at < startedAt);
    expect(before.filter((a) => a.audio).length).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(before.length); // writes went on during the backup

    const restoredDir = tempDir("restored");
    const restore = await runCommand("restore", [backupDir], envFor(restoredDir));
    expect(restore.stderr).toBe("");
    expect(restore.stdout).toMatch(/^Restored the database and \d+ files into /);

    const restored = await buildApp(loadConfig({ ...envFor(restoredDir), SEED_DEMO: "false" }), { logger: false });
    try {
      const found = await whatTheyFind(restored, person);
      expect(found).toMatchObject({ signedIn: true, recordings: 1, audio: [200] });
      const rows = await restored.deps.db
        .selectFrom("messages")
        .select(["id", "message_type"])
        .where("user_id", "=", person.id)
        .execute();
      const ids = new Set(rows.map((r) => String(r.id)));
      for (const a of before) expect(ids.has(a.id), `message ${a.id}`).toBe(true);
      // Every voice note row in the copy, acknowledged before the backup or during it, has its file.
      const voice = rows.filter((r) => r.message_type === "audio");
      for (const row of voice) {
        const res = await restored.inject({
          url: `/api/messages/audio/${row.id}`,
          headers: { authorization: `Bearer ${person.token}` },
        });
        expect(res.statusCode, `voice note ${row.id}`).toBe(200);
      }
    } finally {
      await restored.close();
    }
  }, 120_000);

  it("refuses a restore into a DATA_DIR that is not empty, and a backup into a folder that is not, with one line", async () => {
    const dataDir = tempDir("busy");
    const app = await buildApp(loadConfig(envFor(dataDir)), { logger: false });
    await app.close();
    const backupDir = tempDir("copy2");
    const once = await runCommand("backup", [backupDir], envFor(dataDir));
    expect(once.code).toBe(0);
    const twice = await runCommand("backup", [backupDir], envFor(dataDir));
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^backup: .* is not empty: choose a new folder\n$/);
    const restore = await runCommand("restore", [backupDir], envFor(dataDir));
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/^restore: .* is not empty: restore goes into an empty DATA_DIR\n$/);
    const notBackup = await runCommand("restore", [dataDir], envFor(tempDir("empty")));
    expect(notBackup.stderr).toMatch(/^restore: .* is not a backup \(no manifest\.json\)\n$/);
  }, 60_000);
});
