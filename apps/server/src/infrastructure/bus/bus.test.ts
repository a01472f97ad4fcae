import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestDatabaseUrl, testDialect } from "../../test/test-app.ts";
import { CONFIRM_TIMEOUT_MS } from "./bus.ts";
import { COALESCE_MS, SignalCoalescer } from "./coalescer.ts";
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

describe("folding repeated signals", () => {
  // Only the window's timer is fake, so each step is exact.
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
  afterEach(() => void vi.useRealTimers());

  const recorder = () => {
    const sent: string[] = [];
    const coalescer = new SignalCoalescer(async (channel, payload) => void sent.push(`${channel} ${payload}`), 25);
    return { sent, coalescer };
  };

  it("sends the first signal at once, folds the window's others into one at its end, and each publish resolves once covered", async () => {
    const { sent, coalescer } = recorder();
    await coalescer.publish("chan", "new");
    expect(sent).toEqual(["chan new"]);
    const covered: number[] = [];
    const later = Array.from({ length: 10 }, (_, i) => coalescer.publish("chan", "new").then(() => void covered.push(i)));
    await vi.advanceTimersByTimeAsync(24);
    expect(sent).toEqual(["chan new"]);
    expect(covered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(later);
    // The trailing edge: one send for the ten, after the last of them.
    expect(sent).toEqual(["chan new", "chan new"]);
    expect(covered).toHaveLength(10);
    expect(coalescer.folded).toBe(9);
    // A quiet window owes nothing: no third send.
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(2);
    // Quiet again, the next signal goes at once.
    await coalescer.publish("chan", "new");
    expect(sent).toHaveLength(3);
  });

  it("loses no signal published just after a trailing send: it is owed at the end of the window that send opened", async () => {
    const { sent, coalescer } = recorder();
    await coalescer.publish("chan", "new");
    const second = coalescer.publish("chan", "new");
    await vi.advanceTimersByTimeAsync(25);
    await second;
    expect(sent).toHaveLength(2);
    const third = coalescer.publish("chan", "new");
    await vi.advanceTimersByTimeAsync(25);
    await third;
    expect(sent).toHaveLength(3);
  });

  it("never folds different channels or payloads, and a closing bus sends what is owed at once", async () => {
    const { sent, coalescer } = recorder();
    await Promise.all([coalescer.publish("chan", "a"), coalescer.publish("chan", "b"), coalescer.publish("other", "a")]);
    expect(sent.sort()).toEqual(["chan a", "chan b", "other a"]);
    const owed = coalescer.publish("chan", "a");
    await coalescer.flush();
    await owed;
    expect(sent.filter((x) => x === "chan a")).toHaveLength(2);
  });

  it("a failed trailing send rejects the publishes it covered; a window of 0 sends every signal", async () => {
    let fail = false;
    let sends = 0;
    const coalescer = new SignalCoalescer(async () => {
      sends++;
      if (fail) throw new Error("database gone");
    }, 25);
    await coalescer.publish("chan", "new");
    fail = true;
    const covered = coalescer.publish("chan", "new");
    const settled = expect(covered).rejects.toThrow("database gone");
    await vi.advanceTimersByTimeAsync(25);
    await settled;
    const every = new SignalCoalescer(async () => void sends++, 0);
    sends = 0;
    await Promise.all([every.publish("chan", "new"), every.publish("chan", "new")]);
    expect(sends).toBe(2);
    expect(COALESCE_MS).toBeGreaterThan(0);
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

  it("folds a burst of the same signal into at most two NOTIFYs, the last after the burst; confirmed ones each go", async () => {
    const url = db?.url ?? "";
    const a = new PostgresBus(url);
    const b = new PostgresBus(url);
    try {
      const heard: string[] = [];
      await b.subscribe("hikaya_burst", (p) => heard.push(p));
      await a.subscribe("hikaya_other", () => undefined);
      await waitFor(() => a.live && b.live && a.listeners("hikaya_burst") === 1);
      await Promise.all(Array.from({ length: 50 }, () => a.publish("hikaya_burst", "new")));
      // Every publish has resolved, so its signal has been sent: the trailing one covers the last of the burst.
      await waitFor(() => heard.length >= 2);
      expect(heard).toEqual(["new", "new"]);
      expect(a.folded).toBe(48);
      // Confirmed publishes are not folded: each waits for its own acknowledgements.
      for (let i = 0; i < 3; i++) await a.publish("hikaya_burst", "new", { confirm: true });
      expect(heard).toHaveLength(5);
    } finally {
      await a.close();
      await b.close();
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
