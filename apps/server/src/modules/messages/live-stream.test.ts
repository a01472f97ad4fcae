import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { type LiveConnection, LiveHub } from "./live-hub.ts";
import type { MessageRow } from "./messages.repository.ts";
import { toChatMessage } from "./messages.service.ts";
import { LIVE_STREAM_MAX_BUFFERED_BYTES } from "./messages.stream.ts";
import { listen, openSse, sendText } from "./messages.test-helpers.ts";

const HEARTBEAT_MS = 25_000;

let t: TestApp;
let app: App;
let base: string;

beforeAll(async () => {
  // Only the interval timers and the clock are fake: the heartbeat is one setInterval for every stream, and a
  // token's expiry is read from the clock. Sockets, the database and every timeout run for real.
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
  t = await createTestApp();
  app = t.app;
  base = await listen(app);
});
afterAll(async () => {
  await t?.close();
  vi.useRealTimers();
});

const streamOf = (user: TestUser) => openSse(`${base}/api/messages/stream?access_token=${user.token}`);

describe("the shared heartbeat", () => {
  it("pings every open stream, and ends the one whose session was signed out; the others stay open", async () => {
    const [alice, bob] = [await createTestUser(app), await createTestUser(app)];
    const a = await streamOf(alice);
    const b = await streamOf(bob);
    await Promise.all([a.ready, b.ready]);
    await app.deps.auth.service.endSessionsOf(alice.id);

    vi.advanceTimersByTime(HEARTBEAT_MS);
    await a.ended;
    await b.waitForText(": ping");
    expect(b.isEnded()).toBe(false);

    // Still live after the heartbeat: a message reaches bob's stream.
    const sent = await sendText(app, bob.headers, "still here");
    expect(sent.statusCode).toBe(200);
    expect((await b.waitFor(1)).map((m: ChatMessage) => m.message)).toEqual(["still here"]);
    b.close();
  });

  it("ends a stream as soon as its session ends (a role change, sign-out everywhere), before any heartbeat", async () => {
    const [dana, eve] = [await createTestUser(app), await createTestUser(app)];
    const d = await streamOf(dana);
    const e = await streamOf(eve);
    await Promise.all([d.ready, e.ready]);
    // A write that does not end the session (a refreshed token's) leaves the stream alone.
    await app.deps.db
      .updateTable("sessions")
      .set({ refreshed_at: new Date().toISOString() })
      .where("user_id", "=", dana.id)
      .execute();
    expect((await sendText(app, dana.headers, "dana is still here")).statusCode).toBe(200);
    expect((await d.waitFor(1)).map((m: ChatMessage) => m.message)).toEqual(["dana is still here"]);
    expect(d.isEnded()).toBe(false);
    await app.deps.auth.service.endSessionsOf(dana.id);
    await d.ended; // no timer advanced: the write itself ended it
    expect(e.isEnded()).toBe(false);
    const sent = await sendText(app, eve.headers, "eve is still here");
    expect(sent.statusCode).toBe(200);
    expect((await e.waitFor(1)).map((m: ChatMessage) => m.message)).toEqual(["eve is still here"]);
    e.close();
  });

  it("ends a stream once its access token has expired, so the browser reconnects with its current token", async () => {
    const carol = await createTestUser(app);
    const c = await streamOf(carol);
    await c.ready;
    vi.advanceTimersByTime(HEARTBEAT_MS);
    await c.waitForText(": ping");
    expect(c.isEnded()).toBe(false);

    vi.setSystemTime(Date.now() + 2 * 3600_000); // tokens last an hour (JWT_EXPIRY_SECONDS)
    vi.advanceTimersByTime(HEARTBEAT_MS);
    await c.ended;
    // The old token no longer opens a stream.
    const again = await streamOf(carol);
    expect(again.status).toBe(401);
  });
});

describe("what an open stream keeps", () => {
  it("lets go of the response (with Fastify's request and reply) and of the request's headers once its head is written", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const seen: { req: IncomingMessage; res: WeakRef<ServerResponse> }[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith("/api/messages/stream")) seen.push({ req, res: new WeakRef(res) });
    };
    app.server.prependListener("request", watch);
    const erin = await createTestUser(app);
    const e = await openSse(`${base}/api/messages/stream?access_token=${erin.token}`, { "x-client-note": "n".repeat(500) });
    await e.ready;
    app.server.off("request", watch);
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(seen).toHaveLength(1);
    const [{ req, res }] = seen as [(typeof seen)[0]];
    expect(res.deref()).toBeUndefined();
    // Node's server keeps the request it parsed until the connection closes: without the headers or the token.
    expect(req.rawHeaders).toEqual([]);
    expect(req.headers).toEqual({});
    expect(req.url).toBe("/api/messages/stream");

    // The stream itself is as live as ever.
    const sent = await sendText(app, erin.headers, "still delivered");
    expect(sent.statusCode).toBe(200);
    expect((await e.waitFor(1)).map((m) => m.message)).toEqual(["still delivered"]);
    e.close();
  });
});

describe("a reader that stopped reading", () => {
  it("is dropped once too much waits to be written to it, and gets what it missed when it reconnects; others go on", async () => {
    const [fay, gus] = [await createTestUser(app), await createTestUser(app)];
    const sockets: Socket[] = [];
    const watch = (req: IncomingMessage) => {
      if (req.url?.startsWith("/api/messages/stream")) sockets.push(req.socket);
    };
    app.server.prependListener("request", watch);
    const f = await streamOf(fay);
    const g = await streamOf(gus);
    await Promise.all([f.ready, g.ready]);
    app.server.off("request", watch);
    expect(sockets).toHaveLength(2);
    // Fay's tab stops reading: as the socket would report once the kernel's buffers are full.
    Object.defineProperty(sockets[0] as Socket, "writableLength", {
      get: () => LIVE_STREAM_MAX_BUFFERED_BYTES + 1,
      configurable: true,
    });
    const send = (user: TestUser, message: string) =>
      app.inject({ method: "POST", url: "/api/message/send", headers: user.headers, payload: { message, messageType: "text" } });
    expect((await send(fay, "into a full buffer")).statusCode).toBe(200);
    await f.ended;
    expect((await send(gus, "gus still live")).statusCode).toBe(200);
    expect((await g.waitFor(1)).map((m) => m.message)).toEqual(["gus still live"]);
    expect(g.isEnded()).toBe(false);
    // Reconnecting from the last id it saw (its ready event's), the tab gets what it missed.
    const again = await openSse(`${base}/api/messages/stream?access_token=${fay.token}`, { "last-event-id": await f.ready });
    expect((await again.waitFor(1)).map((m) => m.message)).toEqual(["into a full buffer"]);
    again.close();
    g.close();
  });
});

describe("ordering", () => {
  it("a message stored elsewhere whose signal has not arrived yet still reaches the stream, before the next one", async () => {
    const dave = await createTestUser(app);
    const d = await streamOf(dave);
    await d.ready;
    // As another replica would: stored, its bus signal still on the way.
    await app.deps.db
      .insertInto("messages")
      .values({
        user_id: dave.id,
        sender_id: dave.id,
        sender_role: "user",
        message_type: "text",
        body: "stored elsewhere",
        created_at: new Date().toISOString(),
      })
      .execute();
    const sent = await sendText(app, dave.headers, "sent here");
    expect(sent.statusCode).toBe(200);
    expect((await d.waitFor(2)).map((m) => m.message)).toEqual(["stored elsewhere", "sent here"]);
    d.close();
  });
});

describe("a burst to many streams", () => {
  it("delivers every message to every stream it belongs to exactly once, and to no other", async () => {
    const families = await Promise.all(Array.from({ length: 12 }, () => createTestUser(app)));
    const staff = await Promise.all(Array.from({ length: 2 }, () => createTestUser(app, { admin: true })));
    // 1 to 3 tabs per family, 3 facilitator tabs each.
    const tabs = [
      ...families.flatMap((f, i) => Array.from({ length: (i % 3) + 1 }, () => ({ owner: f.id as string | null, user: f }))),
      ...staff.flatMap((s) => Array.from({ length: 3 }, () => ({ owner: null as string | null, user: s }))),
    ];
    const streams = await Promise.all(
      tabs.map(async (tab) => ({
        owner: tab.owner,
        sse: await openSse(
          tab.owner === null
            ? `${base}/api/admin/messages/stream?access_token=${tab.user.token}`
            : `${base}/api/messages/stream?access_token=${tab.user.token}`,
        ),
      })),
    );
    await Promise.all(streams.map((s) => s.sse.ready));

    // 120 messages at once: families and facilitators' replies interleaved, all in flight together.
    const sends = Array.from({ length: 120 }, (_, i) => {
      const family = families[i % families.length] as TestUser;
      const facilitator = i % 5 === 4 ? (staff[i % staff.length] as TestUser) : null;
      return app.inject({
        method: "POST",
        url: facilitator ? `/api/admin/conversations/${family.id}/messages` : "/api/message/send",
        headers: (facilitator ?? family).headers,
        payload: { message: `burst ${i}`, messageType: "text" },
      });
    });
    const answers = await Promise.all(sends);
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const sent = answers.map((r) => {
      const body = r.json() as { data?: ChatMessage } & ChatMessage;
      return body.data ?? body;
    });

    for (const { owner, sse } of streams) {
      const expected = sent.filter((m) => owner === null || m.conversation === owner).map((m) => m._id);
      await sse.waitFor(expected.length);
      // Each once, none missing, none from another family; each conversation's in id order (every conversation's
      // stream follows commit order, which interleaves conversations written side by side).
      const got = sse.messages.map((m) => m._id);
      expect([...got].sort()).toEqual([...expected].sort());
      for (const family of families) {
        const mine = sse.messages.filter((m) => m.conversation === family.id).map((m) => Number(m._id));
        expect(mine).toEqual([...mine].sort((x, y) => x - y));
      }
    }
    // A late duplicate would be written before the next message, which every facilitator stream gets: once that
    // has arrived everywhere it goes, each stream holds exactly what it should.
    const last = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: (families[0] as TestUser).headers,
      payload: { message: "after the burst", messageType: "text" },
    });
    expect(last.statusCode).toBe(200);
    const expectedCount = (owner: string | null) =>
      sent.filter((m) => owner === null || m.conversation === owner).length +
      (owner === null || owner === families[0]?.id ? 1 : 0);
    for (const { owner, sse } of streams)
      if (owner === null || owner === families[0]?.id) await sse.waitFor(expectedCount(owner));
    for (const { owner, sse } of streams) expect(sse.messages).toHaveLength(expectedCount(owner));
    for (const { sse } of streams) sse.close();
  });
});

describe("writes of a burst", () => {
  it("messages stored together leave in one write per stream, once the requests that were ready together are handled, before their senders are acknowledged", async () => {
    const hub = new LiveHub(app.deps.db, app.deps.bus, toChatMessage, app.deps.database.dialect);
    await hub.start();
    const calls: string[] = [];
    const tab = (name: string, userId: string | null): LiveConnection => ({
      userId,
      lastSentId: 0,
      send: (frame) => void calls.push(`${name} ${frame.slice(0, frame.indexOf("\n"))}`),
      cork: () => void calls.push(`${name} cork`),
      uncork: () => void calls.push(`${name} uncork`),
    });
    const [u1, u2] = await Promise.all([createTestUser(app), createTestUser(app)]);
    await hub.connect(tab("facilitator", null), null);
    await hub.connect(tab("family", u1.id), null);
    // Stored as a send stores them (committed before they are announced).
    const stored: MessageRow[] = [];
    for (const userId of [u1.id, u2.id, u1.id])
      stored.push(
        await app.deps.db
          .insertInto("messages")
          .values({
            user_id: userId,
            sender_id: userId,
            sender_role: "user",
            message_type: "text",
            body: `message to ${userId}`,
            created_at: new Date().toISOString(),
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
    const [first, second, third] = stored as [MessageRow, MessageRow, MessageRow];
    // Three sends finishing in one turn of the event loop, as in a burst (the hub announces what this process stored).
    // Each sender is acknowledged only once its message has left for the streams: a sender never hears "sent" before
    // the people watching could.
    const acknowledged = (id: number) => () => void calls.push(`acknowledged ${id}`);
    await Promise.all([
      hub.announce(first).then(acknowledged(first.id)),
      hub.announce(second).then(acknowledged(second.id)),
      hub.announce(third).then(acknowledged(third.id)),
    ]);
    expect(calls.slice(0, 9)).toEqual([
      "family cork",
      `family id: ${first.id}`,
      "facilitator cork",
      `facilitator id: ${first.id}`,
      `facilitator id: ${second.id}`,
      `family id: ${third.id}`,
      `facilitator id: ${third.id}`,
      "family uncork",
      "facilitator uncork",
    ]);
    // In any order among themselves.
    expect(calls.slice(9).sort()).toEqual([first.id, second.id, third.id].map((id) => `acknowledged ${id}`).sort());
    await hub.close();
  });
});
