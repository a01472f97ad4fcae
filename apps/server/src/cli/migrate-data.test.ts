// Moving a program from SQLite + DATA_DIR to PostgreSQL + S3. Needs a PostgreSQL server, so it runs in the
// PostgreSQL pass only (reported as skipped on SQLite).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import { activePerson, type Person, runCommand, whatTheyFind } from "../test/cli-commands.ts";
import { startTestS3, type TestS3 } from "../test/s3-server.ts";
import { createTestDatabaseUrl, testDialect } from "../test/test-app.ts";

const EXTRA_MESSAGES = 10_000;

describe.runIf(testDialect() === "postgres")("npm run migrate-data: SQLite + DATA_DIR to PostgreSQL + S3", () => {
  let dataDir: string;
  let targetDir: string;
  let s3: TestS3;
  let target: { url: string; drop(): Promise<void> };
  let people: Person[];
  let before: Awaited<ReturnType<typeof whatTheyFind>>[];
  let baseEnv: Record<string, string>;
  let s3Env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "hikaya-move-"));
    targetDir = mkdtempSync(join(tmpdir(), "hikaya-moved-"));
    baseEnv = {
      DATA_DIR: dataDir,
      SEED_DEMO: "true",
      AUTH_SCRYPT_LOG_N: "12",
      LOG_LEVEL: "silent",
      WEB_DIST_DIR: join(dataDir, "no-web"),
      RATE_LIMIT_FACTOR: "100",
      AUTH_RATE_LIMIT_FACTOR: "100",
    };
    const source = await buildApp(loadConfig(baseEnv), { logger: false });
    people = [await activePerson(source), await activePerson(source)];
    // A program that has been running a while: 10,000 more messages in a third person's conversation.
    const chatty = await activePerson(source);
    const now = Date.now();
    const rows = Array.from({ length: EXTRA_MESSAGES }, (_, i) => ({
      user_id: chatty.id,
      sender_id: chatty.id,
      sender_role: "user" as const,
      message_type: "text" as const,
      body: `older message ${i}`,
      duration_seconds: null,
      client_id: null,
      created_at: new Date(now - (EXTRA_MESSAGES - i) * 1000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await source.deps.db
        .insertInto("messages")
        .values(rows.slice(i, i + 1000))
        .execute();
    before = await Promise.all(people.map((p) => whatTheyFind(source, p)));
    await source.close();
    s3 = await startTestS3();
    target = (await createTestDatabaseUrl()) as typeof target;
    const { STORAGE_DRIVER: _, ...rest } = s3.env;
    s3Env = rest;
  }, 120_000);

  afterAll(async () => {
    await target?.drop();
    await s3?.close();
    for (const dir of [dataDir, targetDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a target it cannot reach, with one line, and changes nothing", async () => {
    const res = await runCommand("migrate-data", ["--to", "postgres://postgres@127.0.0.1:1/none"], baseEnv);
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toMatch(/^migrate-data: Cannot reach the target database/);
  });

  it("copies every table and file, verifies them, and the same people sign in and find everything", async () => {
    const res = await runCommand("migrate-data", ["--to", target.url, "--storage", "s3"], { ...baseEnv, ...s3Env });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Copied \d+ tables, \d+ rows \(row counts match\) in [\d.]+ s\./);
    expect(res.stdout).toMatch(/Copied \d+ files, [\d.]+ MB, to S3 bucket hikaya-test \(checksums match\)\./);
    console.log(`migrate-data, demo program + ${EXTRA_MESSAGES} messages:\n${res.stdout}`);

    const moved = await buildApp(
      loadConfig({ ...baseEnv, ...s3.env, DATA_DIR: targetDir, DATABASE_URL: target.url, SEED_DEMO: "false" }),
      { logger: false },
    );
    try {
      for (const [i, person] of people.entries()) {
        const found = await whatTheyFind(moved, person);
        expect(found).toEqual(before[i]);
        // "Deleted" is the spec's word for a watched story.
        expect(found).toMatchObject({ signedIn: true, firstStory: "Deleted", recordings: 1, audio: [200], voiceStatus: 200 });
        // The signing keys moved with the data: a token from the old server is still good.
        expect(
          (await moved.inject({ url: "/api/profile", headers: { authorization: `Bearer ${person.token}` } })).statusCode,
        ).toBe(200);
      }
      // Seeded public files are on S3 now: a thumbnail from the story list is served.
      const stories = (await moved.inject({ url: "/api/stories" })).json() as { thumbnailUrl: string }[];
      expect((await moved.inject({ url: stories[0]?.thumbnailUrl as string })).statusCode).toBe(200);
      // New ids continue after the copied ones.
      const count = await moved.deps.db
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst();
      expect(Number(count?.n)).toBe(EXTRA_MESSAGES + 6);
      // The inbox's counts are not copied: the target's triggers counted the conversations as they arrived.
      const kept = await moved.deps.db.selectFrom("inbox_counts").selectAll().execute();
      const conversations = await moved.deps.db
        .selectFrom("conversations")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst();
      expect(Number(conversations?.n)).toBeGreaterThan(0);
      expect(kept.map((k) => [Number(k.conversations), Number(k.unassigned)])).toEqual([
        [Number(conversations?.n), Number(conversations?.n)],
      ]);
    } finally {
      await moved.close();
    }
  }, 180_000);

  it("refuses a target that is not empty, and changes nothing", async () => {
    const res = await runCommand("migrate-data", ["--to", target.url, "--storage", "s3"], { ...baseEnv, ...s3Env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^migrate-data: The target database is not empty \(table \w+ has rows\)/);
  });

  it("a bucket that does not exist stops it before the database is touched; a re-run then succeeds", async () => {
    const fresh = (await createTestDatabaseUrl()) as typeof target;
    try {
      const wrong = await runCommand("migrate-data", ["--to", fresh.url, "--storage", "s3"], {
        ...baseEnv,
        ...s3Env,
        S3_BUCKET: "no-such-bucket",
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^migrate-data: S3 bucket "no-such-bucket" at .* does not exist\n$/);
      const again = await runCommand("migrate-data", ["--to", fresh.url, "--storage", "s3"], { ...baseEnv, ...s3Env });
      expect(again.stderr).toBe("");
      expect(again.code).toBe(0);
    } finally {
      await fresh.drop();
    }
  }, 180_000);
});
