import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createReplica, createTestApp, type TestApp, testDialect } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { mediaWorkerOf } from "../media/worker.ts";
import { encodedAudio, mp4, webm } from "../recordings/test-fixtures.ts";
import { listen, multipart, openSse, wavBytes } from "./messages.test-helpers.ts";

let t: TestApp;
let app: App;
let base: string;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  // Tests here count a conversation's stored files; the worker would add each voice note's processed copy
  // (modules/media) while they count. media.test.ts covers the copy.
  await mediaWorkerOf(app)?.stop();
  base = await listen(app);
  alice = await createTestUser(app);
  bob = await createTestUser(app);
  admin = await createTestUser(app, { admin: true });
});
afterAll(async () => t?.close());

async function sendText(user: TestUser, message: string, extra: Record<string, string> = {}) {
  const form = await multipart({ message, messageType: "text", ...extra });
  return app.inject({
    method: "POST",
    url: "/api/message/send",
    headers: { ...user.headers, ...form.headers },
    payload: form.payload,
  });
}

async function count(userId: string) {
  const row = await app.deps.db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

function storedVoiceNotes(userId: string): string[] {
  try {
    return readdirSync(join(t.config.dataDir, "storage", "voice-notes", userId)).filter((f) => !f.endsWith("__type"));
  } catch {
    return [];
  }
}

describe("sending and listing", () => {
  it("stores a text message and lists it in the spec's fields, newest page first", async () => {
    const res = await sendText(alice, "  Hello <b>team</b>  ");
    expect(res.statusCode).toBe(200);
    const sent = res.json().data as ChatMessage;
    expect(sent).toMatchObject({ from: alice.id, messageType: "text", message: "Hello <b>team</b>", senderRole: "user" });
    for (let i = 1; i <= 4; i++) expect((await sendText(alice, `n${i}`)).statusCode).toBe(200);

    const page1 = await app.inject({ method: "POST", url: "/api/messages", headers: alice.headers, payload: { limit: 3 } });
    expect(page1.statusCode).toBe(200);
    const data = page1.json().data as { messages: ChatMessage[]; hasMore: boolean; greeting: string | null };
    expect(data.messages.map((m) => m.message)).toEqual(["n2", "n3", "n4"]);
    expect(data.hasMore).toBe(true);
    expect(Object.keys(data.messages[0] ?? {})).toEqual(
      expect.arrayContaining(["_id", "from", "messageType", "message", "createdAt"]),
    );
    const page2 = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: alice.headers,
      payload: { before: data.messages[0]?._id, limit: 3 },
    });
    const older = page2.json().data as { messages: ChatMessage[]; hasMore: boolean };
    expect(older.messages.map((m) => m.message)).toEqual(["Hello <b>team</b>", "n1"]);
    expect(older.hasMore).toBe(false);
    // Another person's list does not contain them.
    const other = await app.inject({ method: "POST", url: "/api/messages", headers: bob.headers, payload: {} });
    expect((other.json().data as { messages: ChatMessage[] }).messages).toEqual([]);
  });

  it("accepts a JSON text message too and exposes the greeting audio", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: bob.headers,
      payload: { message: "json hello", messageType: "text" },
    });
    expect(res.statusCode).toBe(200);
    const greeting = await app.inject({ method: "GET", url: "/api/messages/greeting", headers: bob.headers });
    expect(greeting.statusCode).toBe(200);
    expect(greeting.json()).toHaveProperty("audio");
  });

  it("stores a voice note privately: owner and facilitators can play it with Range, nobody else", async () => {
    const wav = wavBytes(1);
    const form = await multipart({ message: "audio", messageType: "audio", durationSeconds: "1.04" }, { bytes: wav });
    const res = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...alice.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(200);
    const msg = res.json().data as ChatMessage;
    expect(msg).toMatchObject({ messageType: "audio", durationSeconds: 1 });
    expect(msg.message).toBe(`/api/messages/audio/${msg._id}`);

    const own = await app.inject({ method: "GET", url: msg.message, headers: { ...alice.headers, range: "bytes=0-99" } });
    expect(own.statusCode).toBe(206);
    expect(own.headers["content-type"]).toBe("audio/wav");
    expect(own.headers["content-range"]).toBe(`bytes 0-99/${wav.length}`);
    expect((await app.inject({ method: "GET", url: msg.message, headers: admin.headers })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: msg.message, headers: bob.headers })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: msg.message })).statusCode).toBe(401);
  });

  it("sends each client-made message once, however often it is retried", async () => {
    const before = await count(bob.id);
    const a = await sendText(bob, "only once", { clientId: "retry-key-0001" });
    const b = await sendText(bob, "only once", { clientId: "retry-key-0001" });
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(b.json().data._id).toBe(a.json().data._id);
    expect(await count(bob.id)).toBe(before + 1);
  });

  it("a retry sent while the first is still being stored gets the same message, and nothing is stored twice", async () => {
    const before = await count(bob.id);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => sendText(bob, "sent four times at once", { clientId: "retry-key-0002" })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().data._id)).size).toBe(1);
    expect(await count(bob.id)).toBe(before + 1);
  });

  it("a facilitator's clientId used again for another conversation is a conflict, and stores nothing", async () => {
    const reply = (userId: string) =>
      app.inject({
        method: "POST",
        url: `/api/admin/conversations/${userId}/messages`,
        headers: admin.headers,
        payload: { message: "one reply", messageType: "text", clientId: "retry-key-0003" },
      });
    expect((await reply(alice.id)).statusCode).toBe(200);
    const before = await count(bob.id);
    const elsewhere = await reply(bob.id);
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json()).toMatchObject({ code: "conflict" });
    expect(await count(bob.id)).toBe(before);
  });
});

describe("bad input: a clear error and nothing stored", () => {
  it("refuses an empty message", async () => {
    const before = await count(alice.id);
    const res = await sendText(alice, "   ");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, errorCode: "validation_failed", data: "The message is empty" });
    const none = await app.inject({ method: "POST", url: "/api/message/send", headers: alice.headers, payload: {} });
    expect(none.statusCode).toBe(400);
    expect(await count(alice.id)).toBe(before);
  });

  it("refuses a file that is not audio, whatever it claims to be", async () => {
    const before = storedVoiceNotes(alice.id).length;
    const form = await multipart(
      { message: "audio", messageType: "audio" },
      { bytes: Buffer.from("<html><script>alert(1)</script></html>".repeat(50)), type: "audio/mpeg", filename: "x.mp3" },
    );
    const res = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...alice.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: 415, errorCode: "unsupported_media_type" });
    expect(storedVoiceNotes(alice.id).length).toBe(before);
  });

  it("refuses a WebM or MP4 video sent as a voice note, and takes the audio-only ones", async () => {
    const before = storedVoiceNotes(alice.id).length;
    for (const bytes of [webm(["audio", "video"]), mp4(["vide", "soun"], { brand: "isom" })]) {
      const form = await multipart({ message: "audio", messageType: "audio" }, { bytes, type: "audio/webm", filename: "v.webm" });
      const res = await app.inject({
        method: "POST",
        url: "/api/message/send",
        headers: { ...alice.headers, ...form.headers },
        payload: form.payload,
      });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ code: 415, errorCode: "unsupported_media_type" });
    }
    expect(storedVoiceNotes(alice.id).length).toBe(before);
    // Safari's MP4 audio as a real encoding: ffprobe reads every accepted voice, and needs its sample tables.
    for (const bytes of [webm(["audio"]), await encodedAudio("mp4-isom")]) {
      const form = await multipart({ message: "audio", messageType: "audio" }, { bytes, type: "audio/webm", filename: "v.webm" });
      const res = await app.inject({
        method: "POST",
        url: "/api/message/send",
        headers: { ...alice.headers, ...form.headers },
        payload: form.payload,
      });
      expect(res.statusCode).toBe(200);
    }
    expect(storedVoiceNotes(alice.id).length).toBe(before + 2);
  });

  it("refuses a voice note over 10 MB", async () => {
    const before = await count(alice.id);
    const files = storedVoiceNotes(alice.id).length;
    const form = await multipart({ message: "audio", messageType: "audio" }, { bytes: wavBytes(0, 10 * 1024 * 1024 + 10) });
    const res = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...alice.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 413, errorCode: "payload_too_large" });
    expect(await count(alice.id)).toBe(before);
    expect(storedVoiceNotes(alice.id).length).toBe(files);
  });

  it("refuses an audio message without a file", async () => {
    const res = await sendText(alice, "audio", { messageType: "audio" });
    expect(res.statusCode).toBe(400);
  });

  it("refuses a forged sender and another user's conversation", async () => {
    const before = [await count(alice.id), await count(bob.id)];
    const forged = await sendText(alice, "I am bob", { from: bob.id });
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ code: 403, errorCode: "forbidden" });
    const asFacilitator = await sendText(alice, "I am staff", { senderRole: "facilitator" });
    expect(asFacilitator.statusCode).toBe(403);
    const elsewhere = await sendText(alice, "into bob's chat", { userId: bob.id });
    expect(elsewhere.statusCode).toBe(403);
    // A forged field after the file: the file is removed again.
    const files = storedVoiceNotes(alice.id).length;
    const form = await multipart({ messageType: "audio" }, { bytes: wavBytes(0.2) });
    const tail = Buffer.from(form.payload.toString("latin1").replace(/--\r\n$/, ""), "latin1");
    const boundary = /boundary=(.*)$/.exec(form.headers["content-type"])?.[1];
    const payload = Buffer.concat([
      tail,
      Buffer.from(`\r\nContent-Disposition: form-data; name="to"\r\n\r\n${bob.id}\r\n--${boundary}--\r\n`),
    ]);
    const late = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...alice.headers, ...form.headers },
      payload,
    });
    expect(late.statusCode).toBe(403);
    expect(storedVoiceNotes(alice.id).length).toBe(files);
    expect([await count(alice.id), await count(bob.id)]).toEqual(before);
  });

  it("needs a signed-in caller, and admin rights for the facilitator side", async () => {
    const anon = await app.inject({ method: "POST", url: "/api/messages", payload: {} });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ code: 401, errorCode: "unauthorized" });
    for (const url of [
      "/api/admin/conversations",
      `/api/admin/conversations/${bob.id}/messages`,
      `/api/admin/conversations/${bob.id}/person`,
    ]) {
      expect((await app.inject({ method: "GET", url, headers: alice.headers })).statusCode).toBe(403);
    }
    const reply = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${bob.id}/messages`,
      headers: alice.headers,
      payload: { message: "fake staff reply", messageType: "text" },
    });
    expect(reply.statusCode).toBe(403);
    const missing = await app.inject({
      method: "POST",
      url: "/api/admin/conversations/nobody/messages",
      headers: admin.headers,
      payload: { message: "hi", messageType: "text" },
    });
    expect(missing.statusCode).toBe(404);
  });

  it("refuses a live stream without a valid token", async () => {
    const none = await openSse(`${base}/api/messages/stream`);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ code: "unauthorized" });
    const bad = await openSse(`${base}/api/messages/stream?access_token=not.a.jwt`);
    expect(bad.status).toBe(401);
    const notAdmin = await openSse(`${base}/api/admin/messages/stream?access_token=${alice.token}`);
    expect(notAdmin.status).toBe(403);
  });
});

describe("live delivery", () => {
  it("pushes a message to the user's tabs and to facilitators once, and not to others", async () => {
    const tab1 = await openSse(`${base}/api/messages/stream?access_token=${alice.token}`);
    const tab2 = await openSse(`${base}/api/messages/stream`, alice.headers);
    const otherUser = await openSse(`${base}/api/messages/stream?access_token=${bob.token}`);
    const staff = await openSse(`${base}/api/admin/messages/stream?access_token=${admin.token}`);
    await Promise.all([tab1.ready, tab2.ready, otherUser.ready, staff.ready]);

    const sent = (await sendText(alice, "live hello")).json().data as ChatMessage;
    const reply = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${alice.id}/messages`,
      headers: admin.headers,
      payload: { message: "hello from the team", messageType: "text" },
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toMatchObject({ from: admin.id, senderRole: "facilitator" });

    for (const tab of [tab1, tab2, staff]) {
      const got = await tab.waitFor(2);
      expect(got.map((m) => m.message)).toEqual(["live hello", "hello from the team"]);
      expect(got[0]?._id).toBe(sent._id);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(tab1.messages).toHaveLength(2);
    expect(otherUser.messages).toHaveLength(0);
    // A facilitator's view of one conversation gets only that conversation, replayed from a cursor.
    const one = await openSse(`${base}/api/admin/messages/stream?access_token=${admin.token}&conversation=${alice.id}&after=0`);
    await one.ready;
    expect(one.messages.length).toBeGreaterThan(2);
    expect(one.messages.every((m) => m.conversation === alice.id)).toBe(true);
    for (const c of [tab1, tab2, otherUser, staff, one]) c.close();
  });

  it("catches up after a reconnect from the last id it saw: no gap, no duplicate", async () => {
    const first = await openSse(`${base}/api/messages/stream?access_token=${bob.token}`);
    await first.ready;
    await sendText(bob, "c1");
    const [c1] = await first.waitFor(1);
    first.close();
    // While disconnected: messages from both sides.
    await sendText(bob, "c2");
    await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${bob.id}/messages`,
      headers: admin.headers,
      payload: { message: "c3", messageType: "text" },
    });
    const again = await openSse(`${base}/api/messages/stream?access_token=${bob.token}`, { "last-event-id": c1?._id ?? "" });
    await again.ready;
    await sendText(bob, "c4");
    const got = await again.waitFor(3);
    await new Promise((r) => setTimeout(r, 200));
    expect(again.messages.map((m) => m.message)).toEqual(["c2", "c3", "c4"]);
    expect(got.every((m) => Number(m._id) > Number(c1?._id))).toBe(true);
    again.close();
  });
});

describe("facilitator inbox", () => {
  it("lists conversations newest first with unread counts and marks them read", async () => {
    const carol = await createTestUser(app);
    await sendText(carol, "first from carol");
    await sendText(carol, "second from carol");
    const list = await app.inject({ method: "GET", url: "/api/admin/conversations", headers: admin.headers });
    expect(list.statusCode).toBe(200);
    const conversations = list.json().conversations as { userId: string; unread: number; lastMessage: ChatMessage }[];
    expect(conversations[0]).toMatchObject({ userId: carol.id, unread: 2, lastMessage: { message: "second from carol" } });
    const ids = conversations.map((c) => c.userId);
    expect(new Set(ids).size).toBe(ids.length);

    const read = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${carol.id}/read`,
      headers: admin.headers,
      payload: {},
    });
    expect(read.statusCode).toBe(200);
    const after = await app.inject({ method: "GET", url: "/api/admin/conversations", headers: admin.headers });
    expect(after.json().conversations[0]).toMatchObject({ userId: carol.id, unread: 0 });

    const messages = await app.inject({
      method: "GET",
      url: `/api/admin/conversations/${carol.id}/messages`,
      headers: admin.headers,
    });
    expect(messages.json().messages.map((m: ChatMessage) => m.message)).toEqual(["first from carol", "second from carol"]);
    const person = await app.inject({
      method: "GET",
      url: `/api/admin/conversations/${carol.id}/person`,
      headers: admin.headers,
    });
    expect(person.statusCode).toBe(200);
    expect(person.json()).toMatchObject({ userId: carol.id, watchedStories: [] });
  });

  it("facilitators reply by voice too", async () => {
    const form = await multipart({ message: "audio", messageType: "audio", durationSeconds: "0.5" }, { bytes: wavBytes(0.5) });
    const res = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${bob.id}/messages`,
      headers: { ...admin.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(200);
    const msg = res.json() as ChatMessage;
    expect(msg).toMatchObject({ messageType: "audio", senderRole: "facilitator", conversation: bob.id });
    expect((await app.inject({ method: "GET", url: msg.message, headers: bob.headers })).statusCode).toBe(200);
  });
});

describe.runIf(testDialect() === "postgres")("two replicas on one PostgreSQL database", () => {
  it("delivers across two server processes (a second `node src/main.mjs` on the same database)", async () => {
    const port = await new Promise<number>((ok) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => ok(port));
      });
    });
    const database = t.config.database;
    if (database.kind !== "postgres") throw new Error("expected PostgreSQL");
    const child = spawn(process.execPath, [fileURLToPath(new URL("../../main.mjs", import.meta.url))], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: database.url,
        STORAGE_DRIVER: "local",
        SEED_DEMO: "false",
        LOG_LEVEL: "warn",
        WEB_DIST_DIR: join(t.config.dataDir, "no-web"),
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const other = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; ; i++) {
        const up = await fetch(`${other}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) break;
        if (i > 150 || child.exitCode !== null) throw new Error("second server did not start");
        await new Promise((r) => setTimeout(r, 200));
      }
      const there = await openSse(`${other}/api/messages/stream?access_token=${bob.token}`);
      const here = await openSse(`${base}/api/admin/messages/stream?access_token=${admin.token}&conversation=${bob.id}`);
      await Promise.all([there.ready, here.ready]);
      const sent = (await sendText(bob, "to the other process")).json().data as ChatMessage;
      expect((await there.waitFor(1))[0]).toMatchObject({ _id: sent._id, message: "to the other process" });
      const back = await fetch(`${other}/api/admin/conversations/${bob.id}/messages`, {
        method: "POST",
        headers: { ...admin.headers, "content-type": "application/json" },
        body: JSON.stringify({ message: "from the other process", messageType: "text" }),
      });
      expect(back.status).toBe(200);
      const seenHere = await here.waitFor(2);
      expect(seenHere.map((m) => m.message)).toEqual(["to the other process", "from the other process"]);
      expect((await there.waitFor(2)).map((m) => m.message)).toEqual(["to the other process", "from the other process"]);
      there.close();
      here.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    }
  });

  it("delivers a message sent to one server on the other's live streams", async () => {
    const replica = await createReplica(t.config);
    try {
      const replicaBase = await listen(replica);
      const onReplica = await openSse(`${replicaBase}/api/messages/stream?access_token=${alice.token}`);
      const staffOnReplica = await openSse(`${replicaBase}/api/admin/messages/stream?access_token=${admin.token}`);
      await Promise.all([onReplica.ready, staffOnReplica.ready]);
      const sent = (await sendText(alice, "across replicas")).json().data as ChatMessage;
      const [got] = await onReplica.waitFor(1);
      expect(got).toMatchObject({ _id: sent._id, message: "across replicas" });
      expect((await staffOnReplica.waitFor(1))[0]?._id).toBe(sent._id);
      // And back: the replica stores, the first server's stream delivers.
      const onFirst = await openSse(`${base}/api/messages/stream?access_token=${alice.token}`);
      await onFirst.ready;
      const reply = await replica.inject({
        method: "POST",
        url: `/api/admin/conversations/${alice.id}/messages`,
        headers: admin.headers,
        payload: { message: "reply via replica", messageType: "text" },
      });
      expect(reply.statusCode).toBe(200);
      expect((await onFirst.waitFor(1))[0]?.message).toBe("reply via replica");
      for (const c of [onReplica, staffOnReplica, onFirst]) c.close();
    } finally {
      await replica.close();
    }
  });
});
