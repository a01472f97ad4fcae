import https from "node:https";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { notifyReply, vapidKeys } from "./push.service.ts";
import { type LocalPushService, type ReceivedPush, startLocalPushService } from "./push.test-helpers.ts";
import type { PushOptions } from "./push-delivery.ts";
import { checkPushEndpoint, isPublicAddress, pinnedAgent } from "./push-endpoint.ts";

/** Web Push against a local push service (push.test-helpers.ts) that decrypts each message as a browser would. */
let t: TestApp;
let app: App;
let push: LocalPushService;
let base: string;
let cert: Buffer;
/** What a direct send in these tests may reach: the local push service, nothing else on this machine. */
let localService: PushOptions;
let received: ReceivedPush[];
/** Paths the push service says are gone. */
let gone: Set<string>;
const subscription = (path: string) => push.subscription(path);
const nextPush = () => push.nextPush();

beforeAll(async () => {
  push = await startLocalPushService();
  ({ base, cert, received, gone } = push);
  localService = push.options;
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0" });
  app = t.app;
});
afterAll(async () => {
  await t?.close();
  await push?.close();
});

async function personIn(language: "en" | "ar") {
  const person = await createTestUser(app);
  await app.deps.db
    .insertInto("profiles")
    .values({
      user_id: person.id,
      from_landing_page: 0,
      agree_to_reminder: 1,
      language,
      created_at: "2030-01-01",
      updated_at: "2030-01-01",
    })
    .execute();
  return person;
}

/** Saved as the subscribe route would, past its address check (a loopback push service is refused there). */
async function subscribeLocally(user: TestUser, path: string) {
  const s = subscription(path);
  await app.deps.db
    .insertInto("push_subscriptions")
    .values({ endpoint: s.endpoint, user_id: user.id, p256dh: s.keys.p256dh, auth: s.keys.auth, created_at: "2030-01-01" })
    .execute();
}

const subscriptionsOf = async (userId: string) =>
  (await app.deps.db.selectFrom("push_subscriptions").select("endpoint").where("user_id", "=", userId).execute()).map(
    (r) => r.endpoint,
  );

describe("Web Push for facilitator replies", () => {
  it("publishes one VAPID key, the same for every replica, and needs a signed-in person to subscribe", async () => {
    const key = (await app.inject({ url: "/api/push/key" })).json().publicKey as string;
    expect(Buffer.from(key, "base64url")).toHaveLength(65);
    expect((await vapidKeys(app.deps)).publicKey).toBe(key);
    const anonymous = await app.inject({ method: "POST", url: "/api/push/subscription", payload: subscription("/p/anon") });
    expect(anonymous.statusCode).toBe(401);
    const member = await createTestUser(app);
    const bad = await app.inject({
      method: "POST",
      url: "/api/push/subscription",
      headers: member.headers,
      payload: { endpoint: "not a url", keys: {} },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("a reply's push reaches the person's push endpoint, in their language, opening /chats", async () => {
    const person = await personIn("ar");
    await subscribeLocally(person, "/p/person-1");
    const arrived = nextPush();
    expect(await notifyReply(app.deps, person.id, localService)).toBe(1);
    const push = await arrived;
    expect(push.path).toBe("/p/person-1");
    expect(push.authorization).toMatch(/^vapid t=.+, k=/);
    expect(push.payload).toMatchObject({ title: "حكاية", url: "/chats", lang: "ar" });
    expect(String(push.payload.body)).toContain("فريق حكاية");
  });

  it("removes a subscription the push service says is gone (404/410), keeps the others, and stops after unsubscribing", async () => {
    const person = await personIn("en");
    await subscribeLocally(person, "/p/phone");
    await subscribeLocally(person, "/p/old-laptop");
    gone.add("/p/old-laptop");
    expect(await notifyReply(app.deps, person.id, localService)).toBe(1);
    const left = await app.deps.db.selectFrom("push_subscriptions").select("endpoint").where("user_id", "=", person.id).execute();
    expect(left.map((r) => r.endpoint)).toEqual([`${base}/p/phone`]);
    const en = received.filter((r) => r.path === "/p/phone").at(-1);
    expect(en?.payload).toMatchObject({ title: "Hikaya", lang: "en", url: "/chats" });

    const off = await app.inject({ method: "POST", url: "/api/push/unsubscribe", headers: person.headers, payload: {} });
    expect(off.statusCode).toBe(200);
    expect(await notifyReply(app.deps, person.id, localService)).toBe(0);
  });
});

describe("Web Push goes only to push services on public https addresses", () => {
  const refused = [
    "file:///etc/passwd",
    "gopher://127.0.0.1:70/_hello",
    "http://push.example.com/p/1",
    "https://127.0.0.1/p/1",
    "https://127.1/p/1", // WHATWG reads it as 127.0.0.1
    "https://2130706433/p/1", // and this
    "https://localhost/p/1",
    "https://0.0.0.0/p/1",
    "https://10.1.2.3/p/1",
    "https://172.16.0.1/p/1",
    "https://192.168.1.1/p/1",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/p/1",
    "https://224.0.0.1/p/1",
    "https://255.255.255.255/p/1",
    "https://[::1]/p/1",
    "https://[::]/p/1",
    "https://[fd00::1]/p/1",
    "https://[fe80::1]/p/1",
    "https://[ff02::1]/p/1",
    "https://[::ffff:127.0.0.1]/p/1",
    "https://[::ffff:10.0.0.1]/p/1",
    "https://[::ffff:169.254.169.254]/p/1",
    "https://[2002:7f00:1::]/p/1", // 6to4 around 127.0.0.1
    "https://user:secret@push.example.com/p/1",
  ];

  it("refuses each such endpoint at subscribe, in the person's language, and saves nothing", async () => {
    const arabic = await personIn("ar");
    const english = await createTestUser(app); // no profile yet: the request's language words the refusal
    for (const endpoint of refused) {
      const res = await app.inject({
        method: "POST",
        url: "/api/push/subscription",
        headers: arabic.headers,
        payload: { ...subscription("/p/refused"), endpoint },
      });
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.json(), endpoint).toMatchObject({ code: "validation_failed", details: { field: "endpoint" } });
      expect(res.json().message, endpoint).toContain("عنوان الإشعارات");
    }
    const res = await app.inject({
      method: "POST",
      url: "/api/push/subscription",
      headers: { ...english.headers, "accept-language": "en-GB,en;q=0.8" },
      payload: { ...subscription("/p/refused"), endpoint: "https://192.168.0.10/p/1" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^This notification address cannot be used/);
    expect(await subscriptionsOf(arabic.id)).toEqual([]);
    expect(await subscriptionsOf(english.id)).toEqual([]);
  });

  it("reads public addresses as public and the special ranges as not", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200a"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      "127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1",
      "fc00::1",
      "fe80::1%eth0",
      "2001:db8::1",
      "push.example",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("a facilitator's reply never connects to a subscription on a local address: checked again at send time", async () => {
    // A listener on loopback standing in for anything local (a database, a metadata service, an admin port).
    let connections = 0;
    const listener: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      const person = await personIn("en");
      // Straight into the database, as if saved before the subscribe check existed: only the send-time check stands.
      for (const endpoint of [
        `https://127.0.0.1:${port}/p/loopback`,
        `https://localhost:${port}/p/name`,
        `https://[::ffff:127.0.0.1]:${port}/p/mapped`,
        `https://127.1:${port}/p/short`,
      ]) {
        const s = subscription("/p/local");
        await app.deps.db
          .insertInto("push_subscriptions")
          .values({ endpoint, user_id: person.id, p256dh: s.keys.p256dh, auth: s.keys.auth, created_at: "2030-01-01" })
          .execute();
      }
      const facilitator = await createTestUser(app, { admin: true });
      const reply = await app.inject({
        method: "POST",
        url: `/api/admin/conversations/${person.id}/messages`,
        headers: facilitator.headers,
        payload: { message: "Hello" },
      });
      expect(reply.statusCode, reply.body).toBe(200);
      // The reply's push runs after the answer; it has finished once it forgot the endpoints no push can reach.
      await vi.waitFor(async () => expect(await subscriptionsOf(person.id)).toEqual([]), { timeout: 20_000, interval: 50 });
      expect(connections).toBe(0);
      // The listener was reachable all along: the refusal, not a dead port, is why nothing arrived.
      await new Promise<void>((resolve, reject) => connect(port, "127.0.0.1", resolve).on("error", reject));
      await vi.waitFor(() => expect(connections).toBe(1), { timeout: 20_000, interval: 20 });
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it("connects to the address it checked, without asking DNS again (DNS rebinding)", async () => {
    // push.invalid resolves nowhere: a connection can only come from the checked address the agent was given.
    const url = new URL(`https://push.invalid:${new URL(base).port}/p/pinned`);
    const agent = pinnedAgent({ url, addresses: [{ address: "127.0.0.1", family: 4 }] }, cert);
    try {
      const status = await new Promise<number>((resolve, reject) =>
        https
          .request(url, { method: "POST", agent }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on("error", reject)
          .end(),
      );
      expect(status).toBe(400); // the local push service answered (it knows no keys for this path)
    } finally {
      agent.destroy();
    }
    await expect(checkPushEndpoint(url.href)).rejects.toMatchObject({ reason: "unresolved" });
  });
});

describe("A push endpoint belongs to the account that registered it", () => {
  // A public address literal: subscribing resolves nothing and connects nowhere.
  const endpoint = "https://93.184.215.14/push/v1/shared-endpoint";
  const register = (user: TestUser, keys: { p256dh: string; auth: string }) =>
    app.inject({ method: "POST", url: "/api/push/subscription", headers: user.headers, payload: { endpoint, keys } });
  const stored = () =>
    app.deps.db.selectFrom("push_subscriptions").select(["user_id", "p256dh", "auth"]).where("endpoint", "=", endpoint).execute();

  it("another account registering the same endpoint gets a conflict and the first keeps it, until the first removes it", async () => {
    const first = await personIn("en");
    const second = await personIn("ar");
    expect((await register(first, { p256dh: "first-key", auth: "first-auth" })).statusCode).toBe(200);

    const taken = await register(second, { p256dh: "second-key", auth: "second-auth" });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ code: "conflict", message: "عنوان الإشعارات هذا مسجَّل لحساب آخر." });
    expect(await stored()).toEqual([{ user_id: first.id, p256dh: "first-key", auth: "first-auth" }]);

    // The owner's browser renewing its keys is still its own business.
    expect((await register(first, { p256dh: "renewed-key", auth: "renewed-auth" })).statusCode).toBe(200);
    expect(await stored()).toEqual([{ user_id: first.id, p256dh: "renewed-key", auth: "renewed-auth" }]);

    const off = await app.inject({ method: "POST", url: "/api/push/unsubscribe", headers: first.headers, payload: { endpoint } });
    expect(off.statusCode).toBe(200);
    expect((await register(second, { p256dh: "second-key", auth: "second-auth" })).statusCode).toBe(200);
    expect(await stored()).toEqual([{ user_id: second.id, p256dh: "second-key", auth: "second-auth" }]);
  });
});
