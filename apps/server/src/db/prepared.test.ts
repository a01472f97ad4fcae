import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { prepared } from "./prepared.ts";

describe("prepared queries", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("run the builder's statement with each call's values, on the database and in a transaction, compiled once", async () => {
    let built = 0;
    const upsert = prepared(["key", "expires"], (db, v: { key: string; expires: string }) => {
      built++;
      return db
        .insertInto("rate_limits")
        .values({ key: v.key, count: 1, expires_at: v.expires })
        .onConflict((oc) => oc.column("key").doUpdateSet({ count: sql`rate_limits.count + 1` }))
        .returning(["key", "count"]);
    });
    const db = t.app.deps.db;
    const expires = new Date(Date.now() + 60_000).toISOString();
    expect((await upsert.execute(db, { key: "prepared:a", expires })).rows).toEqual([{ key: "prepared:a", count: 1 }]);
    expect((await upsert.execute(db, { key: "prepared:b", expires })).rows).toEqual([{ key: "prepared:b", count: 1 }]);
    const inTransaction = await db.transaction().execute((trx) => upsert.execute(trx, { key: "prepared:a", expires }));
    expect(inTransaction.rows).toEqual([{ key: "prepared:a", count: 2 }]);
    expect(built).toBe(1);
    const stored = await db
      .selectFrom("rate_limits")
      .select(["key", "count", "expires_at"])
      .where("key", "like", "prepared:%")
      .orderBy("key")
      .execute();
    expect(stored).toEqual([
      { key: "prepared:a", count: 2, expires_at: expires },
      { key: "prepared:b", count: 1, expires_at: expires },
    ]);
  });

  it("refuses a value left undefined (the builder would leave its column out) and a name the query does not use", async () => {
    const insert = prepared(["key", "expires"], (db, v: { key: string; expires: string }) =>
      db.insertInto("rate_limits").values({ key: v.key, count: 1, expires_at: v.expires }),
    );
    await expect(insert.execute(t.app.deps.db, { key: "prepared:c" } as { key: string; expires: string })).rejects.toThrow(
      "no value for expires",
    );
    const unused = prepared(["key", "other"], (db, v: { key: string; other: string }) =>
      db.selectFrom("rate_limits").select("count").where("key", "=", v.key),
    );
    await expect(unused.execute(t.app.deps.db, { key: "x", other: "y" })).rejects.toThrow("other not used");
  });
});
