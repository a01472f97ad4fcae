import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabaseUrl, testDialect } from "../../test/test-app.ts";
import { CONFIRM_TIMEOUT_MS } from "./bus.ts";
import { InProcessBus } from "./in-process-bus.ts";
import { PostgresBus } from "./postgres-bus.ts";

const next = (fn: (resolve: (v: string) => void) => void, ms = 5000) =>
  new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms);
    fn((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });

describe("in-process bus", () => {
  it("delivers to subscribers of the channel, asynchronously, until they unsubscribe", async () => {
    const bus = new InProcessBus();
    const got: string[] = [];
    const off = await bus.subscribe("chan_a", (p) => got.push(p));
    await bus.subscribe("chan_b", () => got.push("wrong channel"));
    await bus.publish("chan_a", "1");
    expect(got).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(["1"]);
    await off();
    await bus.publish("chan_a", "2");
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(["1"]);
    await expect(bus.publish("bad name!", "x")).rejects.toThrow();
    await bus.close();
  });
});

describe.runIf(testDialect() === "postgres")("PostgreSQL LISTEN/NOTIFY bus", () => {
  let db: Awaited<ReturnType<typeof createTestDatabaseUrl>>;
  beforeAll(async () => {
    db = await createTestDatabaseUrl();
  });
  afterAll(async () => db?.drop());

  it("carries a payload from one process's bus to another's, and recovers from a dropped connection", async () => {
    const url = db?.url ?? "";
    const a = new PostgresBus(url);
    const b = new PostgresBus(url);
    try {
      let deliver: (v: string) => void = () => undefined;
      let gap: (v: string) => void = () => undefined;
      await b.subscribe(
        "hikaya_test",
        (p) => deliver(p),
        () => gap("gap"),
      );
      const first = next((r) => {
        deliver = r;
      });
      await a.publish("hikaya_test", JSON.stringify({ id: 1 }));
      expect(JSON.parse(await first)).toEqual({ id: 1 });

      // Kill b's listening connection: it reconnects, listens again and reports a possible gap.
      const gapped = next((r) => {
        gap = r;
      }, 10_000);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen%' and datname = current_database()",
      );
      await admin.end();
      expect(await gapped).toBe("gap");
      const second = next((r) => {
        deliver = r;
      });
      await a.publish("hikaya_test", "after reconnect");
      expect(await second).toBe("after reconnect");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a confirmed publish resolves only after every listening process has run its subscribers", async () => {
    const url = db?.url ?? "";
    const a = new PostgresBus(url);
    const b = new PostgresBus(url);
    const c = new PostgresBus(url);
    try {
      const seenByB: string[] = [];
      const seenByC: string[] = [];
      await b.subscribe("hikaya_confirm", (p) => seenByB.push(p));
      await c.subscribe("hikaya_confirm", (p) => seenByC.push(p));
      await c.subscribe("hikaya_other", () => undefined);
      // a listens too (on another channel), so it hears the others announce themselves.
      await a.subscribe("hikaya_other", () => undefined);
      // Live, and a has heard b and c announce the channel (their answers to its "who" can come after its own).
      await waitFor(() => a.live && b.live && c.live && a.listeners("hikaya_confirm") === 2);
      for (let i = 0; i < 20; i++) {
        await a.publish("hikaya_confirm", `m${i}`, { confirm: true });
        // No waiting: the subscribers on the other connections have already run.
        expect(seenByB.at(-1)).toBe(`m${i}`);
        expect(seenByC.at(-1)).toBe(`m${i}`);
      }
      // Subscribers see the payload only, never the confirmation's framing.
      expect(seenByB).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    } finally {
      await a.close();
      await b.close();
      await c.close();
    }
  });

  it("a process that has gone silent is not waited for, and one whose connection dropped says it is not live", async () => {
    const url = db?.url ?? "";
    const a = new PostgresBus(url);
    const b = new PostgresBus(url);
    try {
      await a.subscribe("hikaya_gone", () => undefined);
      await b.subscribe("hikaya_gone", () => undefined);
      await waitFor(() => a.live && b.live);
      // b stops reading its connection without saying goodbye (a crash): a waits at most the confirmation timeout.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const started = Date.now();
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where query ilike 'listen%' and datname = current_database() and pid <> pg_backend_pid()",
      );
      await admin.end();
      await waitFor(() => !a.live || !b.live);
      await a.publish("hikaya_gone", "x", { confirm: true });
      expect(Date.now() - started).toBeLessThan(CONFIRM_TIMEOUT_MS + 1500);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

async function waitFor(check: () => boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
