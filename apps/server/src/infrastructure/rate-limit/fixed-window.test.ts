import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "../../db/database.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { DatabaseHits, FixedWindowCounter, hitStoreFor, MemoryHits, SqliteHits } from "./fixed-window.ts";

let t: TestApp;
/** The app's database, counting the statements sent through it. */
let db: DB;
let statements = 0;

beforeAll(async () => {
  t = await createTestApp();
  const counting: KyselyPlugin = {
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  db = t.app.deps.db.withPlugin(counting);
});
afterAll(async () => t?.close());

const minute = { limit: 2, windowSeconds: 60 };
const hour = { limit: 1, windowSeconds: 3600 };
// 10:00:30 on a fixed day: 30 s left in the minute's window, 3,570 s in the hour's.
const at = Date.UTC(2026, 0, 5, 10, 0, 30);

describe("counting several keys at once, in the database", () => {
  it("counts every key in one statement and refuses once any passes its limit, for the longest window", async () => {
    const counter = new FixedWindowCounter(new DatabaseHits(db), () => at);
    const hits = [
      { key: "t1:ip", limit: minute },
      { key: "t1:user", limit: hour },
    ];
    statements = 0;
    expect(await counter.hitEach(hits)).toBeNull();
    expect(statements).toBe(1);
    // The second hit passes the hourly key's limit (1) but not the minute's (2): refused until the hour ends.
    expect(await counter.hitEach(hits)).toEqual({ retryAfterSeconds: 3570 });
    // Both were counted, the refused request included.
    const rows = await db
      .selectFrom("rate_limits")
      .select(["key", "count"])
      .where("key", "like", "t1:%")
      .orderBy("key")
      .execute();
    expect(rows.map((r) => [r.key.split(":").slice(0, 2).join(":"), Number(r.count)])).toEqual([
      ["t1:ip", 2],
      ["t1:user", 2],
    ]);
    expect(await counter.hitEach([{ key: "t1:ip", limit: minute }])).toEqual({ retryAfterSeconds: 30 });
  });

  it("counts a key named twice once, and one key alone as before", async () => {
    const counter = new FixedWindowCounter(new DatabaseHits(db), () => at);
    expect(
      await counter.hitEach([
        { key: "t2", limit: minute },
        { key: "t2", limit: minute },
      ]),
    ).toBeNull();
    expect(await counter.hit("t2", minute)).toBeNull();
    expect(await counter.hit("t2", minute)).toEqual({ retryAfterSeconds: 30 });
  });

  it("two requests naming the same keys in another order never wait on each other (rows are locked in key order)", async () => {
    const big = { limit: 1000, windowSeconds: 60 };
    const a = { key: "t3:a", limit: big };
    const b = { key: "t3:b", limit: big };
    const counter = new FixedWindowCounter(new DatabaseHits(db), () => at);
    await counter.hitEach([a, b]);
    // A transaction holds "a" while another request names b then a; the transaction then wants "b". Locked in the
    // order given, that request would hold b and wait for a: PostgreSQL would abort one of the two as a deadlock.
    let other: Promise<unknown> = Promise.resolve();
    await db.transaction().execute(async (trx) => {
      const inTransaction = new FixedWindowCounter(new DatabaseHits(trx), () => at);
      await inTransaction.hitEach([a]);
      other = counter.hitEach([b, a]);
      await new Promise((r) => setTimeout(r, 300));
      await inTransaction.hitEach([b]);
    });
    await other;
    const rows = await db.selectFrom("rate_limits").select("count").where("key", "like", "t3:%").execute();
    expect(rows.map((r) => Number(r.count))).toEqual([3, 3]);
  });
});

describe("counting in memory (SQLite: one server process)", () => {
  it("is where a SQLite database's hits are counted (SqliteHits); PostgreSQL's are counted in the database, for every replica", () => {
    expect(hitStoreFor({ db, dialect: "sqlite" })).toBeInstanceOf(SqliteHits);
    expect(hitStoreFor({ db, dialect: "postgres" })).toBeInstanceOf(DatabaseHits);
  });

  it("on SQLite, keeps a minute's windows in memory and longer ones in the table, which a restart does not forget", async () => {
    const memory = new MemoryHits();
    const counter = new FixedWindowCounter(new SqliteHits(db, memory), () => at);
    const hits = [
      { key: "s1:ip", limit: minute },
      { key: "s1:user", limit: hour },
    ];
    expect(await counter.hitEach(hits)).toBeNull();
    expect(await counter.hit("s1:ip", minute)).toBeNull();
    // Only the hour has a row; the minute's count is in memory.
    const rows = await db.selectFrom("rate_limits").select("key").where("key", "like", "s1:%").execute();
    expect(rows.map((r) => r.key)).toEqual([`s1:user:${Math.floor(at / 3_600_000)}`]);
    // A restart: memory afresh, the table as it was. The minute starts over; the hour still refuses.
    const restarted = new FixedWindowCounter(new SqliteHits(db, new MemoryHits()), () => at);
    expect(await restarted.hitEach(hits)).toEqual({ retryAfterSeconds: 3570 });
    expect(await restarted.hit("s1:ip", minute)).toBeNull();
    expect(await restarted.hit("s1:ip", minute)).toEqual({ retryAfterSeconds: 30 });
  });

  it("counts per key and window without a statement, refuses past the limit, and starts each window afresh", async () => {
    let now = at;
    const counter = new FixedWindowCounter(new MemoryHits(), () => now);
    const hits = [
      { key: "m1:ip", limit: minute },
      { key: "m1:user", limit: hour },
    ];
    statements = 0;
    expect(await counter.hitEach(hits)).toBeNull();
    expect(await counter.hitEach(hits)).toEqual({ retryAfterSeconds: 3570 });
    expect(statements).toBe(0);
    expect(await counter.hit("m1:ip", minute)).toEqual({ retryAfterSeconds: 30 });
    // The next minute: the address's window is new, the account's hour is not over.
    now = at + 30_000;
    expect(await counter.hit("m1:ip", minute)).toBeNull();
    expect(await counter.hit("m1:user", hour)).toEqual({ retryAfterSeconds: 3540 });
  });

  it("is bounded in bytes: the keys hit least recently go first, a key being hammered stays counted", async () => {
    const store = new MemoryHits(4096);
    const counter = new FixedWindowCounter(store, () => at);
    const target = { key: "m2:account", limit: { limit: 100, windowSeconds: 900 } };
    for (let i = 0; i < 99; i++) await counter.hitEach([target, { key: `m2:ip:${i}`, limit: minute }]);
    // Ninety-nine addresses later, the account's count is whole; the first addresses were let go.
    expect(await counter.hit(target.key, target.limit)).toBeNull();
    expect(await counter.hit(target.key, target.limit)).toEqual({ retryAfterSeconds: 870 });
    const [first] = await store.count([{ key: `m2:ip:0:${Math.floor(at / 60_000)}`, ends: 0, seconds: 60 }]);
    expect(first?.count).toBe(1);
  });
});
