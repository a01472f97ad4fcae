/**
 * Live chat at scale (issue 15), part of `npm run bench -- messages`: N open SSE connections (2,000 and 5,000;
 * family tabs, one to three per family, and facilitator tabs following every conversation) on the real app and on
 * a minimal node:http SSE broadcaster that routes the same messages to the same connections. Each server is its
 * own process (pinned to core 0 where taskset exists; this process, the load, to core 1), so memory is read from
 * /proc/<pid>/status for it alone.
 *
 * Figures per N: RSS per open connection (after a forced GC; the average over all of them, and the growth from
 * half to all of them, which leaves out the heap's own one-off growth), and a burst of messages
 * (closed loop, SEND_CONCURRENCY in flight) timed from the start of each send to its arrival on every connection
 * it belongs to: p50/p99, lost, duplicated and misrouted deliveries. App and baseline bursts alternate
 * (LIVE_ROUNDS each); the spread between a side's rounds is the noise a miss must exceed to fail the run.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import {
  cores,
  cpuMsOf,
  FACILITATORS,
  type Person,
  PIN,
  rssOf,
  type Server,
  spawnServer,
  startProfile,
  stop,
  writeProfile,
} from "./live-servers.ts";

const CMD = "npm run bench -- messages";
const SIZES = (process.env.LIVE_SIZES ?? "2000,5000").split(",").map(Number);
const ROUNDS = Number(process.env.LIVE_ROUNDS ?? 3);
const BURST = Number(process.env.LIVE_BURST ?? 400);
const SEND_CONCURRENCY = 16;
const WARM_UP_BURSTS = 2;
/** LIVE_SAMPLES=1: every measured and warm-up burst on its own line (delivery and acknowledgement percentiles). */
const SAMPLES = Boolean(process.env.LIVE_SAMPLES);
/** Five tabs per facilitator account (the per-account cap); the rest are family tabs. */
const TABS_PER_FACILITATOR = 5;
const GOAL_RSS_KB = 25;
const GOAL_P99_RATIO = 1.2;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

// ── the load ─────────────────────────────────────────────────────────────────────────────────────

interface Conn {
  /** The family it follows, or null for a facilitator tab (every conversation). */
  family: string | null;
  seen: Set<string>;
  duplicates: number;
  close(): void;
}

const CLIENT_ID = '"clientId":"';

/**
 * A raw SSE reader: a TCP socket that sends the request itself and scans the bytes for each event's clientId. With
 * thousands of streams, node:http's client (a parser, a response and a string decoder per stream, a JSON.parse per
 * event) kept the load's core busier than the servers' (≥ 110 % of a burst), so the figures measured the load.
 * Every message event of both servers carries `"clientId":"…"` (JSON.stringify, no spaces); chunk sizes sit between
 * events, never inside one, and a marker cut between two reads is kept for the next.
 */
function openStream(server: Server, who: Person, family: string | null, onEvent: (clientId: string) => void) {
  const path =
    server.kind === "baseline"
      ? `/stream${family ? `?user=${family}` : ""}`
      : `${family ? "/api/messages/stream" : "/api/admin/messages/stream"}?access_token=${who.token}`;
  const { hostname, port } = new URL(server.url);
  return new Promise<Conn>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const conn: Conn = { family, seen: new Set(), duplicates: 0, close: () => socket.destroy() };
    let ready = false;
    let buffer = "";
    socket.setEncoding("latin1");
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\naccept: text/event-stream\r\n\r\n`);
    socket.on("data", (text: string) => {
      buffer += text;
      if (!ready) {
        if (buffer.length >= 12 && !buffer.startsWith("HTTP/1.1 200")) {
          socket.destroy();
          return reject(new Error(`${server.kind} stream answered ${buffer.slice(0, 40)}`));
        }
        const at = buffer.indexOf("event: ready");
        if (at < 0) return;
        ready = true;
        buffer = buffer.slice(at);
        resolve(conn);
      }
      let from = 0;
      for (;;) {
        const at = buffer.indexOf(CLIENT_ID, from);
        if (at < 0) {
          buffer = buffer.slice(Math.max(from, buffer.length - CLIENT_ID.length));
          return;
        }
        const end = buffer.indexOf('"', at + CLIENT_ID.length);
        if (end < 0) {
          buffer = buffer.slice(at);
          return;
        }
        const clientId = buffer.slice(at + CLIENT_ID.length, end);
        if (conn.seen.has(clientId)) conn.duplicates++;
        conn.seen.add(clientId);
        onEvent(clientId);
        from = end + 1;
      }
    });
    socket.on("error", (error) => (ready ? undefined : reject(error)));
  });
}

/** Who holds which tab: every family one, some two or three; five tabs per facilitator account. */
function tabPlan(n: number) {
  const familyTabs = n - FACILITATORS * TABS_PER_FACILITATOR;
  const families = Math.ceil(familyTabs / 2);
  const tabs: { family: number | null; facilitator: number | null }[] = [];
  for (let i = 0; i < familyTabs; i++) tabs.push({ family: i % families, facilitator: null });
  for (let f = 0; f < FACILITATORS; f++)
    for (let i = 0; i < TABS_PER_FACILITATOR; i++) tabs.push({ family: null, facilitator: f });
  return { families, tabs };
}

async function openAll(server: Server, plan: ReturnType<typeof tabPlan>, onEvent: (clientId: string) => void) {
  const conns: Conn[] = [];
  for (let i = 0; i < plan.tabs.length; i += 100) {
    const batch = plan.tabs.slice(i, i + 100).map((t) => {
      if (t.family !== null) {
        const who = server.families[t.family] as Person;
        return openStream(server, who, who.id, onEvent);
      }
      return openStream(server, server.facilitators[t.facilitator ?? 0] as Person, null, onEvent);
    });
    conns.push(...(await Promise.all(batch)));
  }
  return conns;
}

async function post(url: string, path: string, token: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

interface BurstResult {
  p50: number;
  p99: number;
  lost: number;
  duplicated: number;
  misrouted: number;
  deliveries: number;
  /** The server's CPU time over the burst (/proc), per message sent. */
  serverCpuMs: number;
  /** How much of the burst (first send to last delivery) this process, the load, was on its core. */
  loadBusy: number;
}

/** One burst: BURST messages, nine in ten from families, one in ten a facilitator's reply. */
async function burst(
  server: Server,
  conns: Conn[],
  sentAt: Map<string, number>,
  latencies: number[],
  arrivals: { last: number },
): Promise<BurstResult> {
  for (const c of conns) {
    c.seen.clear();
    c.duplicates = 0;
  }
  latencies.length = 0;
  sentAt.clear();
  const families = new Set(conns.map((c) => c.family).filter((f): f is string => f !== null));
  const familyOf = new Map(server.families.map((p) => [p.id, p]));
  const present = [...families].map((id) => familyOf.get(id) as Person);
  const plan = Array.from({ length: BURST }, (_, i) => ({
    family: present[Math.floor(Math.random() * present.length)] as Person,
    staff: i % 10 === 9 ? (server.facilitators[i % FACILITATORS] as Person) : null,
    clientId: `b${randomUUID().replaceAll("-", "")}`.slice(0, 40),
  }));
  const conversationOf = new Map<string, string>();
  // Counted before the first send: counted after the last, it held this process (the deliveries' reader) for tens
  // of milliseconds while the burst's last deliveries arrived, and so made its p99.
  const perFamily = new Map<string, number>();
  for (const m of plan) perFamily.set(m.family.id, (perFamily.get(m.family.id) ?? 0) + 1);
  const expected = conns.reduce((n, c) => n + (c.family === null ? plan.length : (perFamily.get(c.family) ?? 0)), 0);
  let next = 0;
  const cpuBefore = cpuMsOf(server);
  const loadBefore = process.cpuUsage();
  const startedAt = performance.now();
  /** Send → its HTTP answer, for LIVE_SAMPLES. */
  const acknowledged: number[] = [];
  await Promise.all(
    Array.from({ length: SEND_CONCURRENCY }, async () => {
      while (next < plan.length) {
        const m = plan[next++];
        if (!m) break;
        conversationOf.set(m.clientId, m.family.id);
        sentAt.set(m.clientId, performance.now());
        const text = `bench message ${m.clientId}`;
        if (server.kind === "baseline") {
          const from = m.staff ?? m.family;
          await post(server.url, "/send", "-", {
            to: m.family.id,
            from: from.id,
            role: m.staff ? "facilitator" : "user",
            message: text,
            clientId: m.clientId,
          });
        } else {
          const body = { message: text, messageType: "text", clientId: m.clientId };
          await (m.staff
            ? post(server.url, `/api/admin/conversations/${m.family.id}/messages`, m.staff.token, body)
            : post(server.url, "/api/message/send", m.family.token, body));
        }
        acknowledged.push(performance.now() - (sentAt.get(m.clientId) ?? 0));
      }
    }),
  );
  // Waits for the deliveries to stop arriving (bounded), then counts.
  const deadline = Date.now() + 30_000;
  let last = -1;
  let still = 0;
  while (Date.now() < deadline) {
    const got = conns.reduce((n, c) => n + c.seen.size, 0);
    if (got >= expected) break;
    still = got === last ? still + 1 : 0;
    if (still >= 20) break; // two seconds without a single new delivery
    last = got;
    await new Promise((r) => setTimeout(r, 100));
  }
  const loadCpu = process.cpuUsage(loadBefore);
  const loadBusy = (loadCpu.user + loadCpu.system) / 1000 / Math.max(1, arrivals.last - startedAt);
  // Late duplicates would arrive right after: give them a moment to show.
  await new Promise((r) => setTimeout(r, 200));
  const serverCpuMs = (cpuMsOf(server) - cpuBefore) / BURST;
  let lost = 0;
  let duplicated = 0;
  let misrouted = 0;
  for (const c of conns) {
    duplicated += c.duplicates;
    for (const [clientId, owner] of conversationOf)
      if ((c.family === null || c.family === owner) && !c.seen.has(clientId)) lost++;
    for (const clientId of c.seen) if (c.family !== null && conversationOf.get(clientId) !== c.family) misrouted++;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  if (SAMPLES) {
    const acks = [...acknowledged].sort((a, b) => a - b);
    const ms = (x: number) => Math.round(x * 10) / 10;
    console.log(
      JSON.stringify({
        server: server.kind,
        burstMs: ms(arrivals.last - startedAt),
        deliveryP50: ms(pct(sorted, 50)),
        deliveryP99: ms(pct(sorted, 99)),
        acknowledgedP50: ms(pct(acks, 50)),
        acknowledgedP99: ms(pct(acks, 99)),
        serverCpuMs,
        loadBusy: ms(loadBusy),
      }),
    );
  }
  return { p50: pct(sorted, 50), p99: pct(sorted, 99), lost, duplicated, misrouted, deliveries: expected, serverCpuMs, loadBusy };
}

async function atSize(n: number, cmd = CMD) {
  const { fail, report } = await import("./lib.ts");
  const plan = tabPlan(n);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const arrivals = { last: 0 };
  const onEvent = (clientId: string) => {
    const t0 = sentAt.get(clientId);
    if (t0 === undefined) return;
    arrivals.last = performance.now();
    latencies.push(arrivals.last - t0);
  };
  const servers: Server[] = [];
  const conns = new Map<Server["kind"], Conn[]>();
  const rss = new Map<Server["kind"], { average: number; marginal: number }>();
  try {
    // Memory: each server alone (the other idle, without connections): RSS with none, half and all of them open.
    for (const kind of ["app", "baseline"] as const) {
      const server = await spawnServer(kind, plan.families);
      servers.push(server);
      const none = await rssOf(server);
      const half = Math.floor(plan.tabs.length / 2);
      const first = await openAll(server, { ...plan, tabs: plan.tabs.slice(0, half) }, onEvent);
      const mid = await rssOf(server);
      const second = await openAll(server, { ...plan, tabs: plan.tabs.slice(half) }, onEvent);
      const all = await rssOf(server);
      conns.set(kind, [...first, ...second]);
      rss.set(kind, { average: (all - none) / n / 1024, marginal: (all - mid) / (n - half) / 1024 });
    }
    // Unmeasured bursts each first (JIT, first allocations: after only one, the first measured round ran up to twice
    // as long as the others), then the measured bursts, alternating sides.
    for (let w = 0; w < WARM_UP_BURSTS; w++)
      for (const server of servers) await burst(server, conns.get(server.kind) ?? [], sentAt, latencies, arrivals);
    const results = new Map<Server["kind"], BurstResult[]>([
      ["app", []],
      ["baseline", []],
    ]);
    for (const server of servers) await startProfile(server);
    for (let r = 0; r < ROUNDS; r++)
      for (const server of servers)
        results.get(server.kind)?.push(await burst(server, conns.get(server.kind) ?? [], sentAt, latencies, arrivals));
    for (const server of servers) await writeProfile(server, n);
    const app = results.get("app") ?? [];
    const base = results.get("baseline") ?? [];
    const appRss = rss.get("app") ?? { average: 0, marginal: 0 };
    const baseRss = rss.get("baseline") ?? { average: 0, marginal: 0 };
    report(
      `live: RSS per open SSE connection at ${n.toLocaleString("en")} connections, /proc after GC: average over all | growth from ${n / 2} to ${n} (app; bare node:http broadcaster)`,
      `${appRss.average.toFixed(1)} KB | ${appRss.marginal.toFixed(1)} KB; ${baseRss.average.toFixed(1)} KB | ${baseRss.marginal.toFixed(1)} KB (goal ≤ ${GOAL_RSS_KB} KB)`,
      cmd,
    );
    // The average carries the heap's own growth steps (young generation, arenas) spread over the connections; the
    // growth over the second half is what one more connection costs. A miss needs both over the goal.
    const appKb = Math.min(appRss.average, appRss.marginal);
    if (appKb > GOAL_RSS_KB) fail(`live RSS per connection at ${n}: ${appKb.toFixed(1)} KB > ${GOAL_RSS_KB} KB`);

    const appP99 = median(app.map((x) => x.p99));
    const baseP99 = median(base.map((x) => x.p99));
    const ratio = appP99 / baseP99;
    // Noise: the widest relative spread between one side's rounds.
    const spread = (xs: number[]) => (xs.length > 1 ? (Math.max(...xs) - Math.min(...xs)) / median(xs) : 0);
    const noise = Math.max(spread(app.map((x) => x.p99)), spread(base.map((x) => x.p99)));
    const sum = (xs: BurstResult[], k: "lost" | "duplicated" | "misrouted") => xs.reduce((s, x) => s + x[k], 0);
    report(
      `live: burst of ${BURST} messages (${SEND_CONCURRENCY} in flight) to ${n.toLocaleString("en")} connections, send→delivery p50 / p99, median of ${ROUNDS} alternating rounds (app | bare broadcaster)`,
      `${median(app.map((x) => x.p50)).toFixed(1)} / ${appP99.toFixed(1)} ms | ${median(base.map((x) => x.p50)).toFixed(1)} / ${baseP99.toFixed(1)} ms: p99 ratio ${ratio.toFixed(2)} (goal ≤ ${GOAL_P99_RATIO}, round spread ±${(noise * 100).toFixed(0)} %); ${app[0]?.deliveries ?? 0} deliveries a round`,
      cmd,
    );
    if (ratio > GOAL_P99_RATIO * (1 + noise))
      fail(
        `live burst p99 at ${n}: ${ratio.toFixed(2)}× the bare broadcaster > ${GOAL_P99_RATIO}× (noise ±${(noise * 100).toFixed(0)} %)`,
      );
    // CPU time is what the server spent, whoever else ran on its core meanwhile: steadier than latency on a busy
    // machine, and what latency follows once the server is the bottleneck. The load's share of its core says whether
    // the load generator, not the server, set the pace.
    const appCpu = median(app.map((x) => x.serverCpuMs));
    const baseCpu = median(base.map((x) => x.serverCpuMs));
    const busiest = Math.max(...app.map((x) => x.loadBusy), ...base.map((x) => x.loadBusy));
    report(
      `live: server CPU per message sent in a burst to ${n.toLocaleString("en")} connections, /proc, median of ${ROUNDS} rounds (app | bare broadcaster)`,
      `${appCpu.toFixed(2)} ms | ${baseCpu.toFixed(2)} ms: ratio ${(appCpu / baseCpu).toFixed(2)}; load generator on its core ≤ ${(busiest * 100).toFixed(0)} % of a burst`,
      cmd,
    );
    const wrong = { lost: sum(app, "lost"), duplicated: sum(app, "duplicated"), misrouted: sum(app, "misrouted") };
    report(
      `live: app deliveries at ${n.toLocaleString("en")} connections over ${ROUNDS} bursts`,
      `lost ${wrong.lost}, duplicated ${wrong.duplicated}, misrouted ${wrong.misrouted} (baseline: lost ${sum(base, "lost")}, duplicated ${sum(base, "duplicated")})`,
      cmd,
    );
    if (wrong.lost || wrong.duplicated || wrong.misrouted) fail(`live delivery at ${n}: not every message exactly once`);
  } finally {
    for (const list of conns.values()) for (const c of list) c.close();
    for (const s of servers) await stop(s);
  }
}

/** `sizes` and `cmd`: another bench's run of these figures (scale.ts: 10,000 streams). */
export async function benchLive(sizes = SIZES, cmd = CMD) {
  console.log(
    `live: ${sizes.join(" and ")} SSE connections, app vs a bare node:http broadcaster, ` +
      (PIN ? "servers on core 0, load on core 1 (taskset)" : "NOT pinned"),
  );
  if (PIN) execFileSync("taskset", ["-pc", "1", String(process.pid)], { stdio: "ignore" });
  try {
    for (const n of sizes) await atSize(n, cmd);
  } finally {
    if (PIN) execFileSync("taskset", ["-pc", `0-${cores() - 1}`, String(process.pid)], { stdio: "ignore" });
  }
}

if (import.meta.main) {
  const { printTable, failures } = await import("./lib.ts");
  await benchLive();
  printTable();
  process.exit(failures.length ? 1 : 0);
}
