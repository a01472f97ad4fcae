import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestDatabaseUrl, testDialect } from "../test/test-app.ts";
import { migrateToLatest, openDatabase } from "./database.ts";

describe.runIf(testDialect() === "postgres")("migrations through a pooler in transaction mode", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // PgBouncer in transaction mode runs each transaction (and each statement outside one) in whichever server session
  // is free: a session-level lock taken outside the migration's transaction may be released in another session, and
  // stay held. Every statement of the migrator, its lock included, must run inside the one transaction.
  it("takes and releases the migration lock inside the migration's transaction", async () => {
    const target = await createTestDatabaseUrl();
    if (!target) throw new Error("no PostgreSQL database");
    const statements: { client: unknown; text: string }[] = [];
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text: string };
      statements.push({ client: this, text: (typeof first === "string" ? first : first.text).trim().toLowerCase() });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const handle = openDatabase({ kind: "postgres", url: target.url });
    try {
      await migrateToLatest(handle);
    } finally {
      await handle.close();
      vi.restoreAllMocks();
      await target.drop();
    }
    const lock = statements.find((s) => s.text.includes("pg_advisory_lock("));
    expect(lock, "the migrator's lock").toBeDefined();
    const own = statements.filter((s) => s.client === lock?.client).map((s) => s.text);
    const at = (pattern: RegExp) => own.findIndex((t) => pattern.test(t));
    const begin = at(/^begin/);
    const commit = own.findLastIndex((t) => /^commit/.test(t));
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(at(/pg_advisory_lock\(/)).toBeGreaterThan(begin);
    expect(at(/pg_advisory_unlock\(/)).toBeGreaterThan(at(/pg_advisory_lock\(/));
    expect(commit).toBeGreaterThan(at(/pg_advisory_unlock\(/));
  });
});
