import Database from "better-sqlite3";
import type { FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, testDialect } from "../test/test-app.ts";
import { createTestUser, type TestUser } from "../test/test-users.ts";
import { DATABASE_BUSY_RETRY_SECONDS, toAppError } from "./error-handler.ts";

/**
 * A database another process keeps busy is the server's passing state, not its bug: SQLite's write lock held past
 * the busy timeout (a backup, a migration, a second server on the same file) answers 503 with Retry-After in the
 * app's error shape, and nothing is half-written.
 */
describe.runIf(testDialect() === "sqlite")("SQLite's write lock held by another process", () => {
  let t: TestApp;
  let person: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    person = await createTestUser(t.app);
  });
  afterAll(async () => t?.close());

  const contactRows = async () =>
    Number(
      (
        await t.app.deps.db
          .selectFrom("contact_submissions")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("answers 503 with Retry-After (JSON and token API envelope), then the same request succeeds once the lock is let go", async () => {
    if (t.config.database.kind !== "sqlite") throw new Error("this test needs the SQLite file");
    const other = new Database(t.config.database.file);
    try {
      other.exec("BEGIN IMMEDIATE"); // the other process's write transaction: SQLite's one write lock
      const contact = { method: "POST" as const, url: "/api/contactSubmission", payload: { name: "Mona", message: "Hello" } };
      const asked = performance.now();
      const busy = await t.app.inject(contact);
      // SQLite waits synchronously, stalling the whole server: about a second (db/database.ts), not five. The bound
      // leaves room for a loaded machine.
      expect(performance.now() - asked).toBeLessThan(3000);
      expect(busy.statusCode).toBe(503);
      expect(busy.headers["retry-after"]).toBe(String(DATABASE_BUSY_RETRY_SECONDS));
      expect(busy.json()).toEqual({ code: "service_unavailable", message: expect.any(String) });

      const envelope = await t.app.inject({
        method: "POST",
        url: "/api/profile/update",
        headers: person.headers,
        payload: { name: "Mona" },
      });
      expect(envelope.statusCode).toBe(503);
      expect(envelope.headers["retry-after"]).toBe(String(DATABASE_BUSY_RETRY_SECONDS));
      expect(envelope.json()).toMatchObject({ code: 503, errorCode: "service_unavailable" });

      other.exec("ROLLBACK");
      expect(await contactRows()).toBe(0);
      expect((await t.app.inject(contact)).statusCode).toBe(201);
      expect(await contactRows()).toBe(1);
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
    }
  }, 60_000);
});

describe("a database busy in either dialect", () => {
  it("maps SQLite's busy codes and PostgreSQL's lock_not_available to 503 with a wait, and nothing else", () => {
    const warned: unknown[] = [];
    const request = { log: { warn: (o: unknown) => warned.push(o), error: () => {} } } as unknown as FastifyRequest;
    for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "55P03"]) {
      const error = toAppError(Object.assign(new Error("busy"), { code }), request);
      expect(error, code).toMatchObject({ code: "service_unavailable", status: 503 });
      expect(error.details, code).toEqual({ retryAfterSeconds: DATABASE_BUSY_RETRY_SECONDS });
    }
    expect(warned).toHaveLength(3);
    for (const code of ["SQLITE_CONSTRAINT_UNIQUE", "40001", "23505"]) {
      expect(toAppError(Object.assign(new Error("x"), { code }), request).status, code).toBe(500);
    }
  });
});
