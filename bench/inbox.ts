/**
 * The console's inbox at scale (issue 17; `npm run bench -- inbox`, or `node bench/inbox.ts`): p95 of the first
 * page of GET /api/admin/conversations and of searches (a phone in local and in international form, a name, a
 * message's words) with 100 and with 10,000 conversations, on SQLite and, when TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres) answers, on PostgreSQL. Each database is filled through the
 * app's own Kysely in batches (three messages a conversation); requests alternate between the two sizes so
 * the machine's noise falls on both alike.
 */
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { type RunningApp, report, startApp } from "./lib.ts";

const SIZES = [100, 10_000] as const;
const WARMUP = 30;
/** `BENCH_SAMPLES` trades time for noise. */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const BATCH = 500;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

interface Inbox {
  running: RunningApp;
  headers: Record<string, string>;
  size: number;
  drop(): Promise<void>;
}

/** Jordanian numbers 79 1xx xxxx, one per person, so a search for one finds exactly one. */
const nationalOf = (i: number) => `791${String(i).padStart(6, "0")}`;

async function fill(running: RunningApp, size: number) {
  const db = running.app.deps.db;
  const now = Date.now();
  for (let start = 0; start < size; start += BATCH) {
    const people = Array.from({ length: Math.min(BATCH, size - start) }, (_, k) => {
      const i = start + k;
      const at = new Date(now - (size - i) * 60_000).toISOString();
      return { id: randomUUID(), i, at };
    });
    await db
      .insertInto("users")
      .values(
        people.map((p) => ({
          id: p.id,
          email: null,
          phone: `+962${nationalOf(p.i)}`,
          role: "authenticated",
          app_metadata: "{}",
          user_metadata: "{}",
          is_anonymous: 0,
          created_at: p.at,
          updated_at: p.at,
        })),
      )
      .execute();
    await db
      .insertInto("profiles")
      .values(
        people.map((p) => ({
          user_id: p.id,
          name: `Person ${p.i} Haddad`,
          phone_number: nationalOf(p.i),
          country_code: "+962",
          from_landing_page: 0,
          agree_to_reminder: 0,
          created_at: p.at,
          updated_at: p.at,
        })),
      )
      .execute();
    await db
      .insertInto("messages")
      .values(
        people.flatMap((p) =>
          (["user", "facilitator", "user"] as const).map((role, n) => ({
            user_id: p.id,
            sender_id: p.id,
            sender_role: role,
            message_type: "text" as const,
            body: `Message ${n} of person ${p.i}: we watched the story about the olive tree together`,
            created_at: p.at,
          })),
        ),
      )
      .execute();
  }
  await db
    .insertInto("conversations")
    .columns(["user_id", "last_message_id", "last_message_at", "last_user_message_id"])
    .expression((eb) =>
      eb
        .selectFrom("messages")
        .select((s) => ["user_id", s.fn.max("id").as("m"), s.fn.max("created_at").as("at"), s.fn.max("id").as("u")])
        .groupBy("user_id"),
    )
    .execute();
}

async function postgresUrl(): Promise<string | null> {
  const base = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return base;
  } catch {
    return null;
  }
}

async function inbox(size: number, postgresBase: string | null): Promise<Inbox> {
  let env: Record<string, string> = { SEED_DEMO: "false" };
  let drop = async () => {};
  if (postgresBase) {
    const name = `hikaya_bench_${randomBytes(5).toString("hex")}`;
    const admin = new pg.Client({ connectionString: postgresBase });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(postgresBase);
    url.pathname = `/${name}`;
    env = { ...env, DATABASE_URL: url.toString(), STORAGE_DRIVER: "local" };
    drop = async () => {
      const c = new pg.Client({ connectionString: postgresBase });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const running = await startApp(env);
  await fill(running, size);
  const operator = await createTestUser(running.app, { role: "facilitator" });
  return {
    running,
    headers: operator.headers,
    size,
    drop: async () => {
      await running.close();
      await drop();
    },
  };
}

/** One probe: what it asks for, given the size of the inbox (the person searched for sits in the middle). */
const PROBES: { name: string; query: (size: number) => string; expect: (size: number) => number }[] = [
  { name: "first page (30)", query: () => "limit=30", expect: (size) => Math.min(30, size) },
  {
    name: "search: phone, local form",
    query: (size) => {
      const n = nationalOf(Math.floor(size / 2));
      return `q=${encodeURIComponent(`0${n.slice(0, 2)} ${n.slice(2, 5)} ${n.slice(5)}`)}`;
    },
    expect: () => 1,
  },
  {
    name: "search: phone, international form",
    query: (size) => `q=${encodeURIComponent(`+962${nationalOf(Math.floor(size / 2))}`)}`,
    expect: () => 1,
  },
  { name: "search: name", query: (size) => `q=${encodeURIComponent(`Person ${Math.floor(size / 2)} Haddad`)}`, expect: () => 1 },
  {
    name: "search: message text (no match, so every message is read)",
    query: () => `q=${encodeURIComponent("pomegranate")}`,
    expect: () => 0,
  },
];

async function once(box: Inbox, probe: (typeof PROBES)[number]) {
  const started = performance.now();
  const res = await box.running.app.inject({
    method: "GET",
    url: `/api/admin/conversations?${probe.query(box.size)}`,
    headers: box.headers,
  });
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${probe.name} answered ${res.statusCode}: ${res.body}`);
  const found = (res.json() as { conversations: unknown[] }).conversations.length;
  if (found !== probe.expect(box.size)) throw new Error(`${probe.name} at ${box.size}: ${found} rows`);
  return ms;
}

async function benchDialect(label: "SQLite" | "PostgreSQL", postgresBase: string | null) {
  const t0 = performance.now();
  const [small, large] = [await inbox(SIZES[0], postgresBase), await inbox(SIZES[1], postgresBase)];
  console.log(`inbox on ${label}: databases filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const command = `${postgresBase ? `TEST_DATABASE_URL=${postgresBase} ` : ""}npm run bench -- inbox`;
  try {
    for (const probe of PROBES) {
      for (let i = 0; i < WARMUP; i++) {
        await once(small, probe);
        await once(large, probe);
      }
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        a.push(await once(small, probe));
        b.push(await once(large, probe));
      }
      a.sort((x, y) => x - y);
      b.sort((x, y) => x - y);
      report(
        `inbox ${probe.name} p95 at 100 vs 10,000 conversations (${label})`,
        `${pct(a, 95).toFixed(2)} ms vs ${pct(b, 95).toFixed(2)} ms (p50 ${pct(a, 50).toFixed(2)} vs ${pct(b, 50).toFixed(2)} ms, ${SAMPLES} each)`,
        command,
      );
    }
  } finally {
    await small.drop();
    await large.drop();
  }
}

export async function benchInbox() {
  const started = performance.now();
  await benchDialect("SQLite", null);
  const base = await postgresUrl();
  if (base) await benchDialect("PostgreSQL", base);
  else console.log("inbox: PostgreSQL not reachable (TEST_DATABASE_URL), SQLite only");
  console.log(`  (inbox bench took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

if (import.meta.main) {
  const { printTable } = await import("./lib.ts");
  await benchInbox();
  printTable();
  process.exit(process.exitCode ?? 0);
}
