import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { type Written, writingFor, writingForNobody } from "./write-watch.ts";

/** The caches' source of truth: every committed write to a watched table is told, once committed, whoever wrote it. */
describe("WriteWatch", () => {
  let t: TestApp;
  const told: string[][] = [];
  const whose: Written[] = [];
  let stop: () => void;
  beforeAll(async () => {
    t = await createTestApp({ SEED_DEMO: "true" });
    stop = t.app.deps.database.writes.watch(["stories", "progress"], (written) => {
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
    expect(told).toEqual([["stories"], ["stories"]]);
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

  it("names the people a committed write declared, none for rows of nobody's, and no one (anything) for a write that declared none", async () => {
    const id = await someStory();
    const db = t.app.deps.db;
    const plain = (w: Written) => Object.fromEntries([...w].map(([table, people]) => [table, people && [...people].sort()]));
    whose.length = 0;
    await writingFor("rana", () => db.deleteFrom("progress").where("user_id", "=", "rana").execute());
    await db.transaction().execute(async (trx) => {
      await writingFor("sami", () => trx.deleteFrom("progress").where("user_id", "=", "sami").execute());
      await writingFor("huda", () => trx.deleteFrom("progress").where("user_id", "=", "huda").execute());
    });
    await db.transaction().execute(async (trx) => {
      await writingFor("sami", () => trx.deleteFrom("progress").where("user_id", "=", "sami").execute());
      await trx.deleteFrom("progress").where("story_id", "=", "nothing").execute();
      await writingFor("huda", () => trx.updateTable("stories").set({ subtitle_en: "v" }).where("id", "=", id).execute());
    });
    await db.deleteFrom("progress").where("user_id", "=", "rana").execute();
    await writingForNobody(() => db.deleteFrom("progress").where("user_id", "=", "nobody").execute());
    await db.transaction().execute(async (trx) => {
      await writingForNobody(() => trx.deleteFrom("progress").where("user_id", "=", "nobody").execute());
      await writingFor("rana", () => trx.deleteFrom("progress").where("user_id", "=", "rana").execute());
    });
    expect(whose.map(plain)).toEqual([
      { progress: ["rana"] },
      { progress: ["huda", "sami"] },
      { progress: null, stories: ["huda"] },
      { progress: null },
      { progress: [] },
      { progress: ["rana"] },
    ]);
  });
});
