import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, testDialect } from "../test/test-app.ts";
import { createTestUser } from "../test/test-users.ts";
import type { Written } from "./write-watch.ts";

/** The caches' source of truth: every committed write to a watched table is told, once committed, whoever wrote it. */
describe("WriteWatch", () => {
  let t: TestApp;
  const told: string[][] = [];
  const whose: Written[] = [];
  let stop: () => void;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    stop = t.app.deps.database.writes.watch({ stories: [], progress: ["user_id"] }, (written) => {
      told.push([...written.keys()].sort());
      whose.push(written);
    });
  });
  afterAll(async () => {
    stop();
    await t?.close();
  });

  const someStory = async () =>
    (await t.app.deps.db.selectFrom("stories").select(["id", "title_en"]).orderBy("position").executeTakeFirstOrThrow()).id;

  it("tells a write outside a transaction, from a query builder or raw SQL; not reads nor other tables", async () => {
    const id = await someStory();
    told.length = 0;
    await t.app.deps.db.selectFrom("stories").selectAll().execute();
    await sql`select count(*) from stories`.execute(t.app.deps.db);
    await t.app.deps.db.updateTable("profiles").set({ city: "x" }).where("user_id", "=", "nobody").execute();
    expect(told).toEqual([]);
    await t.app.deps.db.updateTable("stories").set({ subtitle_en: "x" }).where("id", "=", id).execute();
    await sql`update stories set subtitle_en = ${"y"} where id = ${id}`.execute(t.app.deps.db);
    // Raw SQL that may write: its text is not read, so every watched table (written-keys.test.ts has the forms).
    expect(told).toEqual([["stories"], ["progress", "stories"]]);
  });

  it("tells a transaction's writes once it commits, and nothing for one rolled back", async () => {
    const id = await someStory();
    told.length = 0;
    await t.app.deps.db.transaction().execute(async (trx) => {
      await trx.updateTable("stories").set({ subtitle_en: "z" }).where("id", "=", id).execute();
      await trx.deleteFrom("progress").where("user_id", "=", "nobody").execute();
      expect(told).toEqual([]);
    });
    expect(told).toEqual([["progress", "stories"]]);
    told.length = 0;
    await expect(
      t.app.deps.db.transaction().execute(async (trx) => {
        await trx.updateTable("stories").set({ subtitle_en: "w" }).where("id", "=", id).execute();
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(told).toEqual([]);
  });

  it("names the rows a write touched, read from the statement; unknown (null) where the statement does not say", async () => {
    const id = await someStory();
    const db = t.app.deps.db;
    const plain = (w: Written) => Object.fromEntries([...w].map(([table, keys]) => [table, keys && [...keys].sort()]));
    whose.length = 0;
    await db.deleteFrom("progress").where("user_id", "=", "rana").execute();
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("progress").where("user_id", "in", ["sami", "huda"]).execute();
      await trx.deleteFrom("progress").where("story_id", "=", id).where("user_id", "=", "lina").execute();
    });
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("progress").where("user_id", "=", "sami").execute();
      await trx.deleteFrom("progress").where("story_id", "=", "nothing").execute();
      await trx.updateTable("stories").set({ subtitle_en: "v" }).where("id", "=", id).execute();
    });
    // A row moved from one person to another changes both.
    await db.updateTable("progress").set({ user_id: "huda" }).where("user_id", "=", "rana").execute();
    await db.updateTable("progress").set({ watched_at: "x" }).where("user_id", "is", null).execute();
    await sql`delete from progress where user_id = ${"rana"}`.execute(db);
    expect(whose.map(plain)).toEqual([
      { progress: ["rana"] },
      { progress: ["huda", "lina", "sami"] },
      // The stories table is watched as a whole (no key columns).
      { progress: null, stories: null },
      { progress: ["huda", "rana"] },
      { progress: [] },
      // Raw SQL: every row of every watched table.
      { progress: null, stories: null },
    ]);
  });

  it("reads the same rows from a versioned save's `returning` statement as from the plain one", async () => {
    const db = t.app.deps.db;
    const seen: Written[] = [];
    const unwatch = t.app.deps.database.writes.watch({ characters: ["id"], reminder_settings: ["id"] }, (w) => {
      seen.push(w);
    });
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    await db
      .insertInto("characters")
      .values({ id, key: id, name_en: "A", name_ar: "أ", created_at: now })
      .returning("version")
      .execute();
    const conditional = (version: number) =>
      db
        .updateTable("characters")
        .set({ name_en: "B", version: version + 1 })
        .where("id", "=", id)
        .where("version", "=", version);
    await conditional(0).execute();
    await conditional(1).returning("version").execute();
    const rules = {
      enabled: 1,
      first_after_hours: 1,
      repeat_after_hours: 1,
      max_per_story: 1,
      window_start: "09:00",
      window_end: "20:00",
      template_en: "{link}",
      template_ar: "{link}",
      updated_at: now,
    };
    const upsert = () =>
      db
        .insertInto("reminder_settings")
        .values({ id: 1, ...rules, version: 1 })
        .onConflict((oc) =>
          oc.column("id").doUpdateSet((eb) => ({ ...rules, version: eb("reminder_settings.version", "+", 1) })),
        );
    await upsert().execute();
    await upsert().returningAll().execute();
    unwatch();
    const plain = seen.map((w) => Object.fromEntries([...w].map(([table, keys]) => [table, keys && [...keys]])));
    expect(plain).toEqual([
      { characters: [id] },
      { characters: [id] },
      { characters: [id] },
      { reminder_settings: ["1"] },
      { reminder_settings: ["1"] },
    ]);
  });

  it("reads an insert's and an upsert's keys from its values, and what a delete takes along by foreign key", async () => {
    const db = t.app.deps.db;
    const seen: Written[] = [];
    const unwatch = t.app.deps.database.writes.watch({ profiles: ["user_id"], sessions: ["id", "user_id"] }, (w) => {
      seen.push(w);
    });
    const now = new Date().toISOString();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    await db
      .insertInto("users")
      .values(
        [a, b].map((id) => ({
          id,
          email: `${id}@example.com`,
          role: "authenticated",
          app_metadata: "{}",
          user_metadata: "{}",
          is_anonymous: 0,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const profile = { from_landing_page: 0, agree_to_reminder: 1, created_at: now, updated_at: now };
    await db
      .insertInto("profiles")
      .values({ user_id: a, city: "Amman", ...profile })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ city: "Irbid" }))
      .execute();
    await db.deleteFrom("users").where("id", "=", b).execute();
    unwatch();
    expect(seen.map((w) => Object.fromEntries([...w].map(([table, keys]) => [table, keys && [...keys]])))).toEqual([
      { profiles: [a] },
      // Its profile and sessions go with a deleted user (on delete cascade): the same person's.
      { profiles: [b], sessions: [b] },
    ]);
  });

  it("tells every table for raw writes its old text reading missed, run on the database", async () => {
    const id = await someStory();
    const db = t.app.deps.db;
    const schema = testDialect() === "postgres" ? "public" : "main";
    told.length = 0;
    await sql`update ${sql.raw(schema)}.stories set subtitle_en = ${"q"} where id = ${id}`.execute(db);
    await sql`/* a note */ update "stories" set subtitle_en = ${"r"} where id = ${id}`.execute(db);
    // PostgreSQL runs every statement of a raw text without parameters.
    if (testDialect() === "postgres")
      await sql.raw(`select 1; update stories set subtitle_en = 's' where id = '${id}'`).execute(db);
    else await sql`update or replace stories set subtitle_en = ${"s"} where id = ${id}`.execute(db);
    const subtitle = await db.selectFrom("stories").select("subtitle_en").where("id", "=", id).executeTakeFirstOrThrow();
    expect(subtitle.subtitle_en).toBe("s");
    expect(told).toEqual([
      ["progress", "stories"],
      ["progress", "stories"],
      ["progress", "stories"],
    ]);
  });

  it("tells what a replace (SQLite) or a merge (PostgreSQL) takes along by foreign key, run on the database", async () => {
    const db = t.app.deps.db;
    const seen: Written[] = [];
    const unwatch = t.app.deps.database.writes.watch({ sessions: ["id", "user_id"] }, (w) => {
      seen.push(w);
    });
    const person = await createTestUser(t.app);
    const row = await db.selectFrom("users").selectAll().where("id", "=", person.id).executeTakeFirstOrThrow();
    if (testDialect() === "postgres")
      await db
        .mergeInto("users")
        .using("sessions", "sessions.user_id", "users.id")
        .whenMatchedAnd("users.id", "=", person.id)
        .thenDelete()
        .execute();
    else await db.replaceInto("users").values(row).execute();
    unwatch();
    // The database did take the sessions along: the cache must hear of it.
    expect(await db.selectFrom("sessions").select("id").where("user_id", "=", person.id).execute()).toEqual([]);
    expect(seen.map((w) => Object.fromEntries(w))).toContainEqual({ sessions: null });
  });
});
