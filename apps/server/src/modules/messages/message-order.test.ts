import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { type LiveConnection, LiveHub } from "./live-hub.ts";
import { toChatMessage } from "./messages.service.ts";
import { listen, openSse, sendText } from "./messages.test-helpers.ts";

// The invariant of modules/messages/CONTEXT.md: conversations are written side by side (no lock for the whole
// database), and a reader catching up by its cursor still gets every message once, each conversation in order.

let t: TwoReplicas;
/** Replica A and, on PostgreSQL, replica B (which hears A only through LISTEN/NOTIFY); SQLite has one process. */
let replicas: App[];
let bases: string[];

beforeAll(async () => {
  t = await twoReplicas();
  replicas = testDialect() === "postgres" ? [t.app, t.replica] : [t.app];
  bases = await Promise.all(replicas.map((app) => listen(app)));
});
afterAll(async () => t?.close());

async function until(check: () => boolean) {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error("the readers made no progress");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every message once, and each conversation's in id order. */
function expectExact(received: ChatMessage[], sent: ChatMessage[]) {
  expect(received.map((m) => m._id).sort()).toEqual(sent.map((m) => m._id).sort());
  const byConversation = new Map<string, number[]>();
  for (const m of received) byConversation.set(m.conversation, [...(byConversation.get(m.conversation) ?? []), Number(m._id)]);
  for (const ids of byConversation.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
}

describe("messages written side by side in many conversations", () => {
  it("reach readers that catch up by cursor during the writes, on every replica: none lost, none twice, in order", async () => {
    const families = await Promise.all(Array.from({ length: 16 }, () => createTestUser(t.app)));
    const facilitator = await createTestUser(t.app, { role: "facilitator" });
    let writing = true;
    // On each replica: a facilitator's stream of every conversation that drops and resumes from the id of the last
    // message it got (what a browser sends back), again and again while the messages are written.
    const progress = bases.map(() => ({ reconnections: 0 }));
    const readers = bases.map(async (base, r) => {
      const got: ChatMessage[] = [];
      const state = progress[r] as { reconnections: number };
      while (writing) {
        // The database's first message is the first of this test.
        const sse = await openSse(`${base}/api/admin/messages/stream?access_token=${facilitator.token}`, {
          "last-event-id": got.at(-1)?._id ?? "0",
        });
        await sse.ready;
        await sse.waitFor(5, 1000).catch(() => undefined);
        sse.close();
        await sse.ended;
        got.push(...sse.messages);
        state.reconnections++;
      }
      return { base, got, reconnections: state.reconnections };
    });
    // Each family's own stream on the other replica, open throughout.
    const own = await Promise.all(
      families.map(async (f, i) => ({
        family: f,
        sse: await openSse(`${bases[(i + 1) % bases.length]}/api/messages/stream?access_token=${f.token}`),
      })),
    );
    await Promise.all(own.map((o) => o.sse.ready));

    // 160 messages through both replicas in waves of 40 at once, families and the facilitator's replies
    // interleaved; each wave starts once every reader has dropped and resumed since the one before.
    const answers = [];
    for (let wave = 0; wave < 4; wave++) {
      const before = progress.map((p) => p.reconnections);
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 40 }, (_, j) => {
            const i = wave * 40 + j;
            const family = families[i % families.length] as TestUser;
            const app = replicas[i % replicas.length] as App;
            return i % 4 === 3
              ? app.inject({
                  method: "POST",
                  url: `/api/admin/conversations/${family.id}/messages`,
                  headers: facilitator.headers,
                  payload: { message: `reply ${i}`, messageType: "text" },
                })
              : sendText(app, family.headers, `message ${i}`);
          }),
        )),
      );
      await until(() => progress.every((p, r) => p.reconnections > (before[r] ?? 0)));
    }
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const sent = answers.map((r) => {
      const body = r.json() as { data?: ChatMessage } & ChatMessage;
      return body.data ?? body;
    });
    writing = false;

    // The last round of each reader ends once it has everything (or its wait runs out, and the check says what).
    for (const reader of await Promise.all(readers)) {
      const missing = () => sent.length - new Set(reader.got.map((m) => m._id)).size;
      if (missing() > 0) {
        const sse = await openSse(`${reader.base}/api/admin/messages/stream?access_token=${facilitator.token}`, {
          "last-event-id": reader.got.at(-1)?._id ?? "0",
        });
        await sse.waitFor(missing()).catch(() => undefined);
        sse.close();
        reader.got.push(...sse.messages);
      }
      expect(reader.reconnections).toBeGreaterThanOrEqual(4);
      expectExact(reader.got, sent);
    }
    for (const { family, sse } of own) {
      const mine = sent.filter((m) => m.conversation === family.id);
      await sse.waitFor(mine.length);
      expectExact(sse.messages, mine);
      sse.close();
    }
  }, 60_000);
});

describe.runIf(testDialect() === "postgres")("a message that commits after a later one", () => {
  it("is not passed by a reader of every conversation: the later one waits until the earlier has committed", async () => {
    const [early, late] = await Promise.all([createTestUser(t.app), createTestUser(t.app)]);
    const hub = new LiveHub(t.app.deps.db, t.app.deps.bus, toChatMessage, "postgres");
    await hub.start();
    const frames: string[] = [];
    const everyConversation: LiveConnection = { userId: null, lastSentId: 0, send: (frame) => void frames.push(frame) };
    const lateFamily: LiveConnection = { userId: late.id, lastSentId: 0, send: (frame) => void frames.push(`own ${frame}`) };
    await hub.connect(everyConversation, null);
    await hub.connect(lateFamily, null);
    const row = (userId: string, body: string) => ({
      user_id: userId,
      sender_id: userId,
      sender_role: "user" as const,
      message_type: "text" as const,
      body,
      created_at: new Date().toISOString(),
    });
    // A transaction stores a message and has not committed yet; another stores one in another conversation and commits.
    const commit = Promise.withResolvers<void>();
    const inserted = Promise.withResolvers<number>();
    const held = t.app.deps.db.transaction().execute(async (trx) => {
      const first = await trx.insertInto("messages").values(row(early.id, "early")).returning("id").executeTakeFirstOrThrow();
      inserted.resolve(first.id);
      await commit.promise;
    });
    const earlyId = await inserted.promise;
    const second = await t.app.deps.db
      .insertInto("messages")
      .values(row(late.id, "late"))
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(second.id).toBeGreaterThan(earlyId);

    // Committed and visible, but not settled: the reader of every conversation does not take it yet.
    await hub.poke();
    expect(frames).toEqual([]);
    commit.resolve();
    await held;
    // Settled once no older transaction runs (another test's writes may briefly hold it back: read until then).
    for (let i = 0; i < 100 && frames.length < 3; i++) await hub.poke();
    const idOf = (frame: string) => /^(?:own )?id: (\d+)/.exec(frame)?.[1];
    expect(frames.filter((f) => !f.startsWith("own")).map(idOf)).toEqual([String(earlyId), String(second.id)]);
    expect(frames.filter((f) => f.startsWith("own")).map(idOf)).toEqual([String(second.id)]);
    await hub.close();
  });
});
