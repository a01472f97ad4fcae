import { describe, expect, it } from "vitest";
import { createTestDatabaseUrl } from "../test/test-app.ts";
import { openDatabase } from "./database.ts";
import { isForeignKeyViolation, isRetryableTransactionError, isUniqueViolation } from "./dialect.ts";

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe("driver error predicates", () => {
  it("knows a lost race from other failures, in both dialects", () => {
    for (const code of ["40P01", "40001", "SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT"])
      expect(isRetryableTransactionError(withCode(code)), code).toBe(true);
    for (const code of ["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_BUSYNESS", "ECONNRESET"])
      expect(isRetryableTransactionError(withCode(code)), code).toBe(false);
    expect(isRetryableTransactionError(new Error("no code"))).toBe(false);
    expect(isRetryableTransactionError(undefined)).toBe(false);
  });

  it("reads unique and foreign-key violations from the real driver", async () => {
    const pg = await createTestDatabaseUrl();
    const { db, close } = openDatabase(pg ? { kind: "postgres", url: pg.url } : { kind: "sqlite", file: ":memory:" });
    try {
      await db.schema
        .createTable("parent")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .execute();
      await db.schema
        .createTable("child")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("parent_id", "integer", (c) => c.references("parent.id"))
        .execute();
      // biome-ignore lint/suspicious/noExplicitAny: tables made in this test only
      const q = db as any;
      await q.insertInto("parent").values({ id: 1 }).execute();
      const duplicate = await q
        .insertInto("parent")
        .values({ id: 1 })
        .execute()
        .catch((e: unknown) => e);
      expect(isUniqueViolation(duplicate)).toBe(true);
      const orphan = await q
        .insertInto("child")
        .values({ id: 1, parent_id: 9 })
        .execute()
        .catch((e: unknown) => e);
      expect(isForeignKeyViolation(orphan)).toBe(true);
      expect(isUniqueViolation(orphan)).toBe(false);
    } finally {
      await close();
      await pg?.drop();
    }
  });
});
