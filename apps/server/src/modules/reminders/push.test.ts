import { execFileSync } from "node:child_process";
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { notifyReply, vapidKeys } from "./push.service.ts";

/**
 * Web Push against a local push service: an HTTPS endpoint (self-signed, trusted through the agent the
 * sender is given) that checks the VAPID header and decrypts each message with the subscription's own
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
let agent: https.Agent;
let certDir: string;
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
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(certDir, "key.pem"),
      "-out",
      join(certDir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const cert = readFileSync(join(certDir, "cert.pem"));
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
  agent = new https.Agent({ ca: cert });
  // The reply route sends with the default agent: trust the local service there too.
  https.globalAgent.options.ca = cert;
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

async function subscribeVia(user: TestUser, path: string) {
  const res = await app.inject({
    method: "POST",
    url: "/api/push/subscription",
    headers: user.headers,
    payload: subscription(path),
  });
  expect(res.statusCode, res.body).toBe(200);
}

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

  it("a facilitator's reply reaches the person's push endpoint, in their language, opening /chats", async () => {
    const person = await personIn("ar");
    await subscribeVia(person, "/p/person-1");
    const facilitator = await createTestUser(app, { admin: true });
    const arrived = nextPush();
    const reply = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${person.id}/messages`,
      headers: facilitator.headers,
      payload: { message: "أهلًا، كيف حالك؟" },
    });
    expect(reply.statusCode, reply.body).toBe(200);
    const push = await arrived;
    expect(push.path).toBe("/p/person-1");
    expect(push.authorization).toMatch(/^vapid t=.+, k=/);
    expect(push.payload).toMatchObject({ title: "حكاية", url: "/chats", lang: "ar" });
    expect(String(push.payload.body)).toContain("فريق حكاية");
  });

  it("removes a subscription the push service says is gone (404/410), keeps the others, and stops after unsubscribing", async () => {
    const person = await personIn("en");
    await subscribeVia(person, "/p/phone");
    await subscribeVia(person, "/p/old-laptop");
    gone.add("/p/old-laptop");
    expect(await notifyReply(app.deps, person.id, { agent })).toBe(1);
    const left = await app.deps.db.selectFrom("push_subscriptions").select("endpoint").where("user_id", "=", person.id).execute();
    expect(left.map((r) => r.endpoint)).toEqual([`${base}/p/phone`]);
    const en = received.filter((r) => r.path === "/p/phone").at(-1);
    expect(en?.payload).toMatchObject({ title: "Hikaya", lang: "en", url: "/chats" });

    const off = await app.inject({ method: "POST", url: "/api/push/unsubscribe", headers: person.headers, payload: {} });
    expect(off.statusCode).toBe(200);
    expect(await notifyReply(app.deps, person.id, { agent })).toBe(0);
  });
});
