/**
 * Message Center load (`npm run bench -- messages`, or `node bench/messages.ts`):
 *  1. Live chat at 2,000 and 5,000 open SSE connections against a bare node:http broadcaster: RSS per
 *     connection, burst send→delivery p50/p99, every message exactly once (`live.ts`).
 *  2. Listing: p95 of a conversation's newest page with 10,000 and with 1,000,000 messages in the
 *     database across 10,000 people (bulk-inserted in batches into SQLite in a temporary directory).
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { report, startApp } from "./lib.ts";
import { benchLive } from "./live.ts";

const CMD = "npm run bench -- messages";

interface Person {
  id: string;
  token: string;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// ── 2. listing with 10,000 vs 1,000,000 messages ─────────────────────────────────────────────────

const PEOPLE = 10_000;
const PROBES = 50;
const PROBE_MESSAGES = 60;

type Probe = Person & { headers: Record<string, string> };

/** A running app whose database holds `total` messages across PEOPLE people; PROBES of them own full conversations. */
async function conversationDatabase(total: number) {
  const running = await startApp({ SEED_DEMO: "false" });
  const bulk = new SQLite(join(running.dataDir, "hikaya.db"));
  bulk.pragma("journal_mode = WAL");
  bulk.pragma("synchronous = OFF");
  try {
    const probes: Probe[] = [];
    for (let i = 0; i < PROBES; i++) probes.push(await createTestUser(running.app));
    const now = new Date().toISOString();
    const insertUser = bulk.prepare(
      "insert into users (id, email, role, app_metadata, user_metadata, is_anonymous, created_at, updated_at) values (?, ?, 'authenticated', '{}', '{}', 0, ?, ?)",
    );
    const everyone = probes.map((p) => p.id);
    bulk.transaction(() => {
      for (let i = 0; i < PEOPLE - PROBES; i++) {
        const id = randomUUID();
        everyone.push(id);
        insertUser.run(id, `${id}@bench.hikaya`, now, now);
      }
    })();
    // The bulk of the rows: batched INSERT … SELECT over a generated sequence, 100,000 rows a batch,
    // spread over everyone in runs of 100 (SQLite does the looping; JS would spend most of the time crossing into it).
    bulk.exec("create temp table bench_people (n integer primary key, id text not null)");
    const person = bulk.prepare("insert into bench_people (n, id) values (?, ?)");
    bulk.transaction(() => {
      for (const [n, id] of everyone.entries()) person.run(n, id);
    })();
    const fill = bulk.prepare(`
      with recursive seq(i) as (select ? union all select i + 1 from seq where i < ?)
      insert into messages (user_id, sender_id, sender_role, message_type, body, created_at)
      select p.id, p.id, 'user', 'text', 'message ' || seq.i || ' of a long conversation about the stories', ?
      from seq join bench_people p on p.n = (seq.i / 100) % ${everyone.length}`);
    const filler = total - PROBES * PROBE_MESSAGES;
    for (let start = 0; start < filler; start += 100_000) {
      const end = Math.min(filler, start + 100_000) - 1;
      bulk.transaction(() => fill.run(start, end, now))();
    }
    // Every probe conversation ends with a full page of its own, so both databases list the same 50 messages.
    const insertMessage = bulk.prepare(
      "insert into messages (user_id, sender_id, sender_role, message_type, body, created_at) values (?, ?, 'user', 'text', ?, ?)",
    );
    bulk.transaction(() => {
      for (let i = 0; i < PROBES * PROBE_MESSAGES; i++) {
        const id = (probes[i % PROBES] as Probe).id;
        insertMessage.run(id, id, `message ${i} of a long conversation about the stories`, now);
      }
    })();
    bulk.exec(
      "insert into conversations (user_id, last_message_id, last_message_at) select user_id, max(id), max(created_at) from messages group by user_id",
    );
    bulk.exec("analyze");
    bulk.pragma("wal_checkpoint(TRUNCATE)");
    const count = (bulk.prepare("select count(*) as n from messages").get() as { n: number }).n;
    return { running, probes, count };
  } finally {
    bulk.close();
  }
}

async function listing() {
  console.log(`messages: newest page with 10,000 vs 1,000,000 messages across ${PEOPLE} people`);
  const t0 = performance.now();
  const small = await conversationDatabase(10_000);
  const large = await conversationDatabase(1_000_000);
  const buildSeconds = (performance.now() - t0) / 1000;
  try {
    const once = async (db: typeof small, i: number) => {
      const who = db.probes[i % PROBES] as Probe;
      const started = performance.now();
      const res = await db.running.app.inject({
        method: "POST",
        url: "/api/messages",
        headers: who.headers,
        payload: { limit: 50 },
      });
      const ms = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
      if ((res.json() as { data: { messages: unknown[] } }).data.messages.length !== 50) throw new Error("page not full");
      return ms;
    };
    // Alternate the two databases request by request, so the machine's noise falls on both alike.
    for (let i = 0; i < 200; i++) {
      await once(small, i);
      await once(large, i);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 1000; i++) {
      a.push(await once(small, i));
      b.push(await once(large, i));
    }
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    const p95Small = pct(a, 95);
    const p95Large = pct(b, 95);
    report(
      `newest page (50) p95 at ${small.count.toLocaleString("en")} vs ${large.count.toLocaleString("en")} messages, ${PEOPLE.toLocaleString("en")} people`,
      `${p95Small.toFixed(2)} ms vs ${p95Large.toFixed(2)} ms: ratio ${(p95Large / p95Small).toFixed(2)} (aim < 1.5); p50 ${pct(a, 50).toFixed(2)} vs ${pct(b, 50).toFixed(2)} ms; databases built in ${buildSeconds.toFixed(0)} s`,
      CMD,
    );
  } finally {
    await small.running.close();
    await large.running.close();
  }
}

export async function benchMessages() {
  const started = performance.now();
  await benchLive();
  await listing();
  console.log(`  (messages bench took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

if (import.meta.main) {
  const { printTable, failures } = await import("./lib.ts");
  await benchMessages();
  printTable();
  process.exit(failures.length ? 1 : (process.exitCode ?? 0));
}
