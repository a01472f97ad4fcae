/**
 * The program at 100,000 families (issue 41; `npm run bench -- scale`, or `node bench/scale-program.ts`): a fresh
 * PostgreSQL database per size (1,000 and `BENCH_SCALE_FAMILIES`, default 100,000 families: 1,000,000 messages,
 * 300,000 progress rows, 50,000 recordings; `scale-program-seed.ts`), the real app in this process on each, and p99
 * of the family's story list, their conversation, the console inbox's first page, an inbox search and a password
 * sign-in, requests alternating between the two sizes so the machine's noise falls on both alike; goal large ÷ small
 * ≤ 1.5×. Every statement one request of each kind sends is captured (pg's Client.query) and EXPLAINed on the large
 * database: a Seq Scan on a table that grows with the families is a miss. Then `scale-program-cpu.ts`: server CPU per
 * request with METRICS_TOKEN set ÷ unset. Sign-in runs at AUTH_SCRYPT_LOG_N=10 (the lowest the config allows), so
 * the figure is the database's and the session's work, not scrypt's (at the default 17 one check costs ~200 ms).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { hashPassword } from "../apps/server/src/modules/auth/secrets.ts";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { fail, type RunningApp, report, startApp } from "./lib.ts";
import { benchMetricsCpu } from "./scale-program-cpu.ts";
import { appEnv, familyOf, MESSAGES_PER_FAMILY, SCRYPT_LOG_N, seedProgram } from "./scale-program-seed.ts";

const FAMILIES = Number(process.env.BENCH_SCALE_FAMILIES ?? 100_000);
/** `BENCH_SCALE_PARTS=cpu` measures only the metrics' cost (on the large database alone); default both. */
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? "latency,cpu").split(","));
const SMALL = 1_000;
/** `BENCH_SAMPLES` trades time for noise (p99 of 600 is the 6th slowest). */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 600);
const WARMUP = 50;
const ROUNDS = 3;
const PROBES = 50;
const GOAL = 1.5;
const PASSWORD = "bench-scale-password";
const MAINTENANCE = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const COMMAND = "npm run bench -- scale";
/** Tables that grow with the families: reading one of them whole is what must not happen. */
const BIG = ["users", "profiles", "sessions", "refresh_tokens", "messages", "conversations", "progress", "recordings"];

export interface Program {
  families: number;
  url: string;
  running: RunningApp;
  operator: Record<string, string>;
  probes: { g: number; headers: Record<string, string>; email: string; name: string }[];
  anonKey: string;
  drop(): Promise<void>;
}

async function createDatabase(label: string) {
  const name = `hikaya_scale_${label}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: MAINTENANCE });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(MAINTENANCE);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: MAINTENANCE });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function program(families: number, passwordHash: string): Promise<Program> {
  const t0 = performance.now();
  const database = await createDatabase(String(families));
  // Once to migrate and seed the demo stories, then again on the filled database, so no cache of the first start
  // has seen the tables before the bulk rows (written behind its back) arrived.
  const first = await startApp({ ...appEnv(database.url), SEED_DEMO: "true" });
  const operator = await createTestUser(first.app, { role: "facilitator" });
  await first.close();
  const counts = await seedProgram(database.url, families, passwordHash, operator.id);
  const running = await startApp({ ...appEnv(database.url), SEED_DEMO: "false" });
  let dropped = false;
  const step = Math.max(1, Math.floor(families / PROBES));
  const probes = [];
  for (let g = Math.ceil(step / 2); g <= families && probes.length < PROBES; g += step) {
    const f = familyOf(g);
    const amr = [{ method: "password", timestamp: Math.floor(Date.now() / 1000) }];
    const { token } = await running.app.deps.auth.tokens.issue({
      userId: f.id,
      email: f.email,
      phone: f.phone,
      appMetadata: { provider: "email", providers: ["email"] },
      userMetadata: {},
      isAnonymous: false,
      sessionId: f.sessionId,
      aal: "aal1",
      amr,
    });
    probes.push({ g, headers: { authorization: `Bearer ${token}` }, email: f.email, name: f.name });
  }
  console.log(
    `scale: ${families.toLocaleString("en")} families (${Object.entries(counts)
      .map(([k, v]) => `${v.toLocaleString("en")} ${k}`)
      .join(", ")}) ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  return {
    families,
    url: database.url,
    running,
    operator: operator.headers,
    probes,
    anonKey: running.app.deps.auth.keys.anonKey,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await running.close();
      await database.drop();
    },
  };
}

type Check = (status: number, body: string) => string | null;
interface Request {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  payload?: unknown;
}
interface Probe {
  name: string;
  request(p: Program, i: number): Request;
  check: Check;
}

const ok =
  (count?: (json: unknown) => number, expected?: number): Check =>
  (status, body) => {
    if (status !== 200) return `answered ${status}: ${body.slice(0, 200)}`;
    if (count && expected !== undefined && count(JSON.parse(body)) !== expected)
      return `${count(JSON.parse(body))} rows, not ${expected}`;
    return null;
  };

const probeOf = (p: Program, i: number) => p.probes[i % p.probes.length] as Program["probes"][number];

const PROBE_KINDS: Probe[] = [
  {
    name: "family's story list (GET /api/stories)",
    request: (p, i) => ({ method: "GET", url: "/api/stories", headers: probeOf(p, i).headers }),
    check: ok(),
  },
  {
    name: "family's conversation (POST /api/messages)",
    request: (p, i) => ({ method: "POST", url: "/api/messages", headers: probeOf(p, i).headers, payload: { limit: 50 } }),
    check: ok((j) => (j as { data: { messages: unknown[] } }).data.messages.length, MESSAGES_PER_FAMILY),
  },
  {
    name: "inbox first page (GET /api/admin/conversations?limit=30)",
    request: (p) => ({ method: "GET", url: "/api/admin/conversations?limit=30", headers: p.operator }),
    check: ok((j) => (j as { conversations: unknown[] }).conversations.length, 30),
  },
  {
    name: "inbox search, a family's name",
    request: (p, i) => ({
      method: "GET",
      url: `/api/admin/conversations?q=${encodeURIComponent(probeOf(p, i).name)}`,
      headers: p.operator,
    }),
    check: ok((j) => (j as { conversations: unknown[] }).conversations.length, 1),
  },
  {
    name: `sign-in (POST /auth/v1/token, scrypt 2^${SCRYPT_LOG_N})`,
    request: (p, i) => ({
      method: "POST",
      url: "/auth/v1/token?grant_type=password",
      headers: { apikey: p.anonKey, "content-type": "application/json" },
      payload: { email: probeOf(p, i).email, password: PASSWORD },
    }),
    check: (status, body) => (status === 200 ? null : `answered ${status}: ${body.slice(0, 200)}`),
  },
];

async function once(p: Program, probe: Probe, i: number) {
  const r = probe.request(p, i);
  const started = performance.now();
  const res = await p.running.app.inject({ ...r, payload: r.payload as string | undefined });
  const ms = performance.now() - started;
  const wrong = probe.check(res.statusCode, res.body);
  if (wrong) throw new Error(`${probe.name} at ${p.families}: ${wrong}`);
  return ms;
}

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(0.99 * s.length))] ?? 0;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function latency(small: Program, large: Program, probe: Probe) {
  for (let i = 0; i < WARMUP; i++) {
    await once(small, probe, i);
    await once(large, probe, i);
  }
  const a: number[][] = [];
  const b: number[][] = [];
  const perRound = Math.ceil(SAMPLES / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    a.push([]);
    b.push([]);
    for (let i = 0; i < perRound; i++) {
      a[round]?.push(await once(small, probe, i));
      b[round]?.push(await once(large, probe, i));
    }
  }
  const [pa, pb] = [p99(a.flat()), p99(b.flat())];
  const ratio = pb / pa;
  // How much the ratio moved between rounds: half its spread, relative to the whole run's.
  const rounds = a.map((r, k) => p99(b[k] as number[]) / p99(r));
  const noise = (Math.max(...rounds) - Math.min(...rounds)) / 2 / median(rounds);
  report(
    `${probe.name} p99 at ${large.families.toLocaleString("en")} ÷ ${small.families.toLocaleString("en")} families`,
    `${ratio.toFixed(2)}× (goal ≤ ${GOAL}×; ${pb.toFixed(2)} vs ${pa.toFixed(2)} ms, p50 ${median(b.flat()).toFixed(2)} vs ${median(a.flat()).toFixed(2)} ms, ${ROUNDS} rounds ${rounds.map((r) => r.toFixed(2)).join("/")})`,
    COMMAND,
  );
  if (ratio > GOAL * (1 + noise))
    fail(
      `${probe.name}: p99 ${ratio.toFixed(2)}× at ${large.families} families (goal ≤ ${GOAL}×, noise ±${(noise * 100).toFixed(0)}%)`,
    );
}

/**
 * The statements sent while one request ran, as pg's Client.query saw them (the app and this file share the `pg`
 * module): the request's own, and any of the app's background jobs that ran meanwhile.
 */
async function captureStatements(p: Program, probe: Probe) {
  const seen: { text: string; values: unknown[] }[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  // Only this program's database: the other app in this process runs its own jobs meanwhile.
  const database = new URL(p.url).pathname.slice(1);
  proto.query = function (this: { database?: string }, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === "string" ? first : (first as { text?: string })?.text;
    if (text && this.database === database)
      seen.push({ text, values: (Array.isArray(second) ? second : (first as { values?: unknown[] }).values) ?? [] });
    return original.apply(this, args);
  };
  try {
    await once(p, probe, 1);
  } finally {
    proto.query = original;
  }
  return seen.filter((s) => /^\s*(select|with|update|delete|insert)\b/i.test(s.text));
}

async function explain(p: Program, probe: Probe) {
  const statements = await captureStatements(p, probe);
  const client = new pg.Client({ connectionString: p.url });
  await client.connect();
  const used = new Set<string>();
  const scans: string[] = [];
  try {
    for (const s of statements) {
      const plan = (await client.query(`explain ${s.text}`, s.values)).rows.map((r) => r["QUERY PLAN"] as string).join("\n");
      for (const m of plan.matchAll(/(?:Index Scan|Index Only Scan)(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/g))
        used.add((m[1] ?? m[2]) as string);
      for (const m of plan.matchAll(/Seq Scan on (\w+)/g)) {
        if (BIG.includes(m[1] as string)) scans.push(`${m[1]} in: ${s.text.replace(/\s+/g, " ").slice(0, 160)}`);
      }
      if (process.env.BENCH_VERBOSE) console.log(`--- ${s.text}\n${plan}`);
    }
  } finally {
    await client.end();
  }
  report(
    `${probe.name}: EXPLAIN at ${p.families.toLocaleString("en")} families`,
    `${statements.length} statement(s); ${scans.length ? `Seq Scan on ${scans.join("; ")}` : "no Seq Scan on a growing table"}; indexes: ${[...used].sort().join(", ") || "none"}`,
    `BENCH_VERBOSE=1 ${COMMAND}`,
  );
  if (scans.length) fail(`${probe.name}: Seq Scan at ${p.families} families: ${scans.join("; ")}`);
}

export async function benchScaleProgram() {
  const started = performance.now();
  const passwordHash = await hashPassword(PASSWORD, SCRYPT_LOG_N);
  const small = PARTS.has("latency") ? await program(Math.min(SMALL, FAMILIES), passwordHash) : undefined;
  let large: Program | undefined;
  try {
    large = await program(FAMILIES, passwordHash);
    if (small) {
      for (const probe of PROBE_KINDS) await explain(large, probe);
      for (const probe of PROBE_KINDS) await latency(small, large, probe);
      await small.drop();
    }
    if (PARTS.has("cpu")) await benchMetricsCpu(large);
  } finally {
    await small?.drop();
    await large?.drop();
  }
  console.log(`  (scale bench took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

if (import.meta.main) {
  const { printTable, failures } = await import("./lib.ts");
  await benchScaleProgram();
  printTable();
  process.exit(failures.length ? 1 : (process.exitCode ?? 0));
}
