/**
 * Message Center load (`npm run bench -- messages`, or `node bench/messages.ts`):
 *  1. Live fan-out: 500 open SSE connections (family tabs, some people with two or three, and
 *     facilitators following every conversation), 2,000 messages from many senders (families and
 *     facilitators). Every message must reach every participant's open connections exactly once;
 *     reports send→delivery p50/p99 and the server's memory per open connection. The server runs in a
 *     child process so its memory is measured alone.
 *  2. Listing: p95 of a conversation's newest page with 10,000 and with 1,000,000 messages in the
 *     database across 10,000 people (bulk-inserted in batches into SQLite in a temporary directory).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { report, startApp } from "./lib.ts";

const CMD = "npm run bench -- messages";
const FAMILIES = 200;
const FACILITATORS = 5;
const FACILITATOR_TABS = 10;
const CONNECTIONS = 500;
const MESSAGES = 2000;
const SEND_CONCURRENCY = 16;

interface Person {
  id: string;
  token: string;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// ── 1. live fan-out ──────────────────────────────────────────────────────────────────────────────

/** Child mode: the real app on a temporary SQLite database, with people and tokens made for the bench. */
async function serveForFanout() {
  const running = await startApp({ SEED_DEMO: "false" });
  const families: Person[] = [];
  for (let i = 0; i < FAMILIES; i++) families.push(await createTestUser(running.app));
  const facilitators: Person[] = [];
  for (let i = 0; i < FACILITATORS; i++) facilitators.push(await createTestUser(running.app, { admin: true }));
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on("message", async (m: { type: string }) => {
    if (m.type === "memory") {
      for (let i = 0; i < 3; i++) gc?.();
      await new Promise((r) => setTimeout(r, 50));
      const mem = process.memoryUsage();
      process.send?.({ type: "memory", heapUsed: mem.heapUsed, rss: mem.rss, external: mem.external });
    }
    if (m.type === "stop") {
      await running.close();
      process.exit(0);
    }
  });
  process.send?.({ type: "ready", url: running.url, families, facilitators });
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type === type) {
        child.off("message", on);
        resolve(m as T);
      }
    };
    child.on("message", on);
    child.send({ type });
  });
}

interface Conn {
  userId: string | null;
  seen: Set<string>;
  duplicates: number;
  close(): void;
}

/** A raw SSE reader over node:http (cheap on the client side, so 500 of them stay honest). */
function openStream(url: string, token: string, userId: string | null, onEvent: (id: string, clientId: string | null) => void) {
  return new Promise<Conn>((resolve, reject) => {
    const path = userId === null ? "/api/admin/messages/stream" : "/api/messages/stream";
    const conn: Conn = { userId, seen: new Set(), duplicates: 0, close: () => req.destroy() };
    const req = httpRequest(`${url}${path}?access_token=${token}`, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith("event: ready") || block.includes("\nevent: ready")) resolve(conn);
          if (block.includes("event: message")) {
            const data = JSON.parse(block.slice(block.indexOf("data: ") + 6)) as { _id: string; clientId: string | null };
            if (conn.seen.has(data._id)) conn.duplicates++;
            conn.seen.add(data._id);
            onEvent(data._id, data.clientId);
          }
          end = buffer.indexOf("\n\n");
        }
      });
      res.on("error", () => undefined);
    });
    req.on("error", (e) => reject(e));
    req.end();
  });
}

async function post(url: string, path: string, token: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  const json = (await res.json()) as { data?: { _id: string }; _id?: string };
  return json.data?._id ?? json._id ?? "";
}

/** Waits for the child's first message (it sends "ready" on its own). */
function firstMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
    const on = (m: { type: string }) => {
      if (m.type === type) {
        child.off("message", on);
        resolve(m as T);
      }
    };
    child.on("message", on);
  });
}

async function fanout() {
  console.log(`messages: ${CONNECTIONS} live connections, ${MESSAGES} messages from many senders`);
  const child = spawn(process.execPath, ["--expose-gc", import.meta.filename, "--fanout-server"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const conns: Conn[] = [];
  try {
    const { url, families, facilitators } = await firstMessage<{ url: string; families: Person[]; facilitators: Person[] }>(
      child,
      "ready",
    );
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const onEvent = (_id: string, clientId: string | null) => {
      const t0 = clientId ? sentAt.get(clientId) : undefined;
      if (t0 !== undefined) latencies.push(performance.now() - t0);
    };
    const before = await ask<{ heapUsed: number; rss: number }>(child, "memory");

    // 450 family tabs (every family one, some two or three) and 50 facilitator tabs.
    const familyTabs = CONNECTIONS - FACILITATORS * FACILITATOR_TABS;
    const opening: Promise<Conn>[] = [];
    for (let i = 0; i < familyTabs; i++) {
      const who = families[i % families.length] as Person;
      opening.push(openStream(url, who.token, who.id, onEvent));
    }
    for (const f of facilitators)
      for (let i = 0; i < FACILITATOR_TABS; i++) opening.push(openStream(url, f.token, null, onEvent));
    for (let i = 0; i < opening.length; i += 50) conns.push(...(await Promise.all(opening.slice(i, i + 50))));
    const after = await ask<{ heapUsed: number; rss: number }>(child, "memory");

    // 2,000 messages: nine in ten from families, one in ten a facilitator's reply.
    const plan = Array.from({ length: MESSAGES }, (_, i) => {
      const family = families[Math.floor(Math.random() * families.length)] as Person;
      const staff = i % 10 === 9 ? (facilitators[i % facilitators.length] as Person) : null;
      return { family, staff, clientId: `bench${randomUUID().replaceAll("-", "")}`.slice(0, 40) };
    });
    const conversationOf = new Map<string, string>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SEND_CONCURRENCY }, async () => {
        while (next < plan.length) {
          const m = plan[next++];
          if (!m) break;
          sentAt.set(m.clientId, performance.now());
          const body = { message: `bench message ${m.clientId}`, messageType: "text", clientId: m.clientId };
          const id = m.staff
            ? await post(url, `/api/admin/conversations/${m.family.id}/messages`, m.staff.token, body)
            : await post(url, "/api/message/send", m.family.token, body);
          conversationOf.set(id, m.family.id);
        }
      }),
    );
    const sendSeconds = (performance.now() - started) / 1000;

    // Expected: each message on every tab of its family and on every facilitator tab.
    const expectedFor = (c: Conn) =>
      c.userId === null ? conversationOf.size : [...conversationOf.values()].filter((u) => u === c.userId).length;
    const expectedTotal = conns.reduce((n, c) => n + expectedFor(c), 0);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const got = conns.reduce((n, c) => n + c.seen.size, 0);
      if (got >= expectedTotal) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 300));
    let missing = 0;
    let wrong = 0;
    let duplicates = 0;
    for (const c of conns) {
      duplicates += c.duplicates;
      for (const [id, owner] of conversationOf) if ((c.userId === null || c.userId === owner) && !c.seen.has(id)) missing++;
      for (const id of c.seen) if (c.userId !== null && conversationOf.get(id) !== c.userId) wrong++;
    }
    latencies.sort((a, b) => a - b);
    const ok = missing === 0 && duplicates === 0 && wrong === 0;
    report(
      `live delivery: ${MESSAGES} messages to ${conns.length} SSE connections (${expectedTotal} deliveries)`,
      `${ok ? "every message exactly once" : "FAILED"} (missing ${missing}, duplicates ${duplicates}, misrouted ${wrong}); sent in ${sendSeconds.toFixed(1)} s`,
      CMD,
    );
    report("send→delivery latency p50 / p99", `${pct(latencies, 50).toFixed(1)} ms / ${pct(latencies, 99).toFixed(1)} ms`, CMD);
    report(
      "server memory per open SSE connection",
      `${((after.heapUsed - before.heapUsed) / conns.length / 1024).toFixed(1)} KB heap, ${((after.rss - before.rss) / conns.length / 1024).toFixed(1)} KB RSS`,
      CMD,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    for (const c of conns) c.close();
    child.send({ type: "stop" });
    await new Promise((r) => {
      const t = setTimeout(() => {
        child.kill("SIGKILL");
        r(null);
      }, 10_000);
      child.once("exit", () => {
        clearTimeout(t);
        r(null);
      });
    });
  }
}

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
  await fanout();
  await listing();
  console.log(`  (messages bench took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

if (import.meta.main) {
  if (process.argv.includes("--fanout-server")) {
    await serveForFanout();
  } else {
    const { printTable } = await import("./lib.ts");
    await benchMessages();
    printTable();
    process.exit(process.exitCode ?? 0);
  }
}
