/**
 * Messages without a global queue (issue 41), part of `npm run bench -- scale`:
 *  1. On PostgreSQL, two replicas of the app on one fresh database per design: SCALE_MESSAGES messages in
 *     SCALE_CONVERSATIONS (1,000) conversations sent through both replicas (SCALE_CONCURRENCY in flight), read live by a
 *     facilitator's stream of every conversation on each replica. The design before issue 41 (one advisory lock for
 *     every message insert until its commit, one NOTIFY per message: app.ts `legacyMessageOrder`) beside today's
 *     (a lock per conversation, (tx, id) reading, folded signals), in the same run: messages per second stored (last
 *     answer) and delivered (last arrival on both streams), the ratio, and lost / duplicated / out-of-order counts.
 *  2. 10,000 live streams on one replica: memory per stream and p99 delivery, through live.ts (beside its bare
 *     node:http broadcaster).
 * `BENCH_DATABASE_URL` (or `TEST_DATABASE_URL`, `DATABASE_URL`) names the PostgreSQL server; without one, part 1 says
 * so and is skipped. `SCALE_LIVE=0` skips part 2.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@hikaya/contracts";
import pg from "pg";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import type { App } from "../apps/server/src/deps.ts";
import { createTestUser, type TestUser } from "../apps/server/src/test/test-users.ts";
import { fail, report } from "./lib.ts";

const CMD = "npm run bench -- scale";
const CONVERSATIONS = Number(process.env.SCALE_CONVERSATIONS ?? 1000);
const MESSAGES = Number(process.env.SCALE_MESSAGES ?? 4000);
const CONCURRENCY = Number(process.env.SCALE_CONCURRENCY ?? 64);
const LIVE_STREAMS = Number(process.env.SCALE_LIVE_STREAMS ?? 10_000);
const GOAL_RATIO = 5;
/** How long the streams may take to show the last messages once every send has been answered. */
const DRAIN_MS = 60_000;

type Design = "global lock" | "per conversation";

interface Reader {
  seen: Set<string>;
  duplicated: number;
  outOfOrder: number;
  lastArrival: number;
  close(): void;
}

/** A facilitator's stream of every conversation, read raw: each message once, each conversation in id order. */
async function openReader(base: string, token: string, ready: () => void): Promise<Reader> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/admin/messages/stream?access_token=${token}`, { signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
  const reader: Reader = {
    seen: new Set(),
    duplicated: 0,
    outOfOrder: 0,
    lastArrival: 0,
    close: () => controller.abort(),
  };
  const lastInConversation = new Map<string, number>();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          if (block.includes("event: ready")) ready();
          if (!block.includes("event: message")) continue;
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data) continue;
          const m = JSON.parse(data) as ChatMessage;
          reader.lastArrival = performance.now();
          if (reader.seen.has(m._id)) reader.duplicated++;
          reader.seen.add(m._id);
          const id = Number(m._id);
          if (id < (lastInConversation.get(m.conversation) ?? 0)) reader.outOfOrder++;
          lastInConversation.set(m.conversation, id);
        }
      }
    } catch {
      // aborted
    }
  })();
  return reader;
}

async function withDatabase<T>(baseUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `hikaya_msgscale_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    const drop = new pg.Client({ connectionString: baseUrl });
    await drop.connect();
    await drop.query(`drop database if exists ${name} with (force)`);
    await drop.end();
  }
}

async function listenOn(app: App): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

interface DesignResult {
  storedPerSecond: number;
  deliveredPerSecond: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  failedSends: number;
}

async function runDesign(baseUrl: string, design: Design): Promise<DesignResult> {
  return withDatabase(baseUrl, async (url) => {
    const dataDir = mkdtempSync(join(tmpdir(), "hikaya-scale-"));
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      STORAGE_DRIVER: "local",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      MEDIA_PROCESS_DEMO: "false",
      RATE_LIMIT_FACTOR: "1000000",
    });
    const options = { logger: false, legacyMessageOrder: design === "global lock" };
    const apps: App[] = [];
    const readers: Reader[] = [];
    try {
      apps.push(await buildApp(config, options));
      apps.push(await buildApp(config, options));
      const bases = await Promise.all(apps.map(listenOn));
      const first = apps[0] as App;
      const families: TestUser[] = [];
      for (let i = 0; i < CONVERSATIONS; i++) families.push(await createTestUser(first));
      const facilitator = await createTestUser(first, { role: "facilitator" });
      for (const base of bases) {
        const ready = Promise.withResolvers<void>();
        readers.push(await openReader(base, facilitator.token, ready.resolve));
        await ready.promise;
      }
      // Every send in its own conversation order: message i goes to family i mod CONVERSATIONS, through replica i mod 2.
      let next = 0;
      let failedSends = 0;
      const started = performance.now();
      let lastAnswer = started;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < MESSAGES; i = next++) {
            const family = families[i % families.length] as TestUser;
            const res = await fetch(`${bases[i % bases.length]}/api/message/send`, {
              method: "POST",
              headers: { ...family.headers, "content-type": "application/json" },
              body: JSON.stringify({ message: `scale ${i}`, messageType: "text", clientId: randomUUID() }),
            });
            await res.arrayBuffer();
            if (res.status !== 200) {
              failedSends++;
              if (failedSends <= 3) console.log(`  scale: a send answered ${res.status}`);
            }
            lastAnswer = performance.now();
          }
        }),
      );
      const stored = MESSAGES - failedSends;
      const drainUntil = performance.now() + DRAIN_MS;
      while (readers.some((r) => r.seen.size < stored) && performance.now() < drainUntil)
        await new Promise((r) => setTimeout(r, 20));
      const delivered = Math.max(...readers.map((r) => r.lastArrival));
      return {
        storedPerSecond: (stored / (lastAnswer - started)) * 1000,
        deliveredPerSecond: (stored / (delivered - started)) * 1000,
        lost: readers.reduce((n, r) => n + Math.max(0, stored - r.seen.size), 0),
        duplicated: readers.reduce((n, r) => n + r.duplicated, 0),
        outOfOrder: readers.reduce((n, r) => n + r.outOfOrder, 0),
        failedSends,
      };
    } finally {
      for (const r of readers) r.close();
      for (const app of apps.reverse()) await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

async function throughput() {
  const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!baseUrl) {
    console.log("  scale: no PostgreSQL (BENCH_DATABASE_URL / TEST_DATABASE_URL): two-replica figures skipped");
    return;
  }
  const results = new Map<Design, DesignResult>();
  for (const design of ["global lock", "per conversation"] as const) {
    console.log(`  scale: ${MESSAGES} messages in ${CONVERSATIONS} conversations on two replicas, ${design}…`);
    results.set(design, await runDesign(baseUrl, design));
  }
  const old = results.get("global lock") as DesignResult;
  const now = results.get("per conversation") as DesignResult;
  const line = (r: DesignResult) =>
    `${r.storedPerSecond.toFixed(0)} stored/s, ${r.deliveredPerSecond.toFixed(0)} delivered/s; lost ${r.lost}, duplicated ${r.duplicated}, out of order ${r.outOfOrder}, failed sends ${r.failedSends}`;
  const ratio = now.deliveredPerSecond / old.deliveredPerSecond;
  report(
    `scale: ${MESSAGES.toLocaleString("en")} messages in ${CONVERSATIONS.toLocaleString("en")} conversations through two replicas on PostgreSQL (${CONCURRENCY} in flight), read by a facilitator stream on each: per conversation | global lock (before issue 41)`,
    `${line(now)} | ${line(old)}; delivered ratio ${ratio.toFixed(2)}×, stored ratio ${(now.storedPerSecond / old.storedPerSecond).toFixed(2)}× (goal ≥ ${GOAL_RATIO}×)`,
    CMD,
  );
  if (now.lost || now.duplicated || now.outOfOrder || now.failedSends)
    fail("scale: messages lost, doubled, out of order or refused on two replicas");
  if (ratio < GOAL_RATIO) fail(`scale: delivered ${ratio.toFixed(2)}× the global lock's < ${GOAL_RATIO}×`);
}

export async function benchScale() {
  await throughput();
  if (process.env.SCALE_LIVE !== "0") {
    const { benchLive } = await import("./live.ts");
    await benchLive([LIVE_STREAMS], CMD);
  }
}

if (import.meta.main) {
  const { printTable, failures } = await import("./lib.ts");
  await benchScale();
  printTable();
  process.exit(failures.length ? 1 : 0);
}
