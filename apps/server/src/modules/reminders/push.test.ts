import { execFileSync } from "node:child_process";
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { notifyReply, type PushOptions, vapidKeys } from "./push.service.ts";
import { checkPushEndpoint, isPublicAddress, pinnedAgent } from "./push-endpoint.ts";

/**
 * Web Push against a local push service: an HTTPS endpoint (self-signed, its certificate and its loopback
 * address allowed through the options the sender is given, as production allows neither) that checks the VAPID header and decrypts each message with the subscription's own
 * keys (RFC 8291, aes128gcm), as a browser's push service and service worker would.
 */
interface Received {
  path: string;
  authorization: string;
  payload: Record<string, unknown>;
}

let t: TestApp;
let app: App;
let service: https.Server;
let base: string;
let cert: Buffer;
let certDir: string;
/** What a direct send in these tests may reach: the local push service, nothing else on this machine. */
let localService: PushOptions;
const received: Received[] = [];
const waiting: ((r: Received) => void)[] = [];
/** Paths the push service says are gone. */
const gone = new Set<string>();
const keysByPath = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();

function decrypt(body: Buffer, ecdh: ReturnType<typeof createECDH>, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = ecdh.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), ecdh.getPublicKey(), senderPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  const end = padded.lastIndexOf(2); // the last record's delimiter, then zero padding
  return padded.subarray(0, end).toString("utf8");
}

function subscription(path: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  keysByPath.set(path, { ecdh, auth });
  return {
    endpoint: `${base}${path}`,
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
  };
}

const nextPush = () =>
  new Promise<Received>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no push arrived")), 5000);
    waiting.push((r) => {
      clearTimeout(timer);
      resolve(r);
    });
  });

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), "hikaya-push-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:push.invalid",
      "-keyout",
      join(certDir, "key.pem"),
      "-out",
      join(certDir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  cert = readFileSync(join(certDir, "cert.pem"));
  service = https.createServer({ key: readFileSync(join(certDir, "key.pem")), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      if (gone.has(path)) {
        res.writeHead(410).end();
        return;
      }
      const keys = keysByPath.get(path);
      if (!keys || req.headers["content-encoding"] !== "aes128gcm") {
        res.writeHead(400).end();
        return;
      }
      const r = {
        path,
        authorization: String(req.headers.authorization ?? ""),
        payload: JSON.parse(decrypt(Buffer.concat(chunks), keys.ecdh, keys.auth)),
      };
      received.push(r);
      waiting.shift()?.(r);
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(service.address() as AddressInfo).port}`;
  localService = { ca: cert, addressAllowed: (address) => address === "127.0.0.1" };
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0" });
  app = t.app;
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => service?.close(resolve));
  rmSync(certDir, { recursive: true, force: true });
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
