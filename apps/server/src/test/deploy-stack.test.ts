// The operators' stack from deploy/: nginx (deploy/nginx) in front of two server processes whose DATABASE_URL goes
// through PgBouncer in transaction mode (deploy/pgbouncer) and whose DATABASE_LISTEN_URL goes straight to PostgreSQL.
// PostgreSQL pass only. Without nginx or pgbouncer installed it skips with the reason printed, except in CI, where
// .ci/run installs them and this must run.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect as connectHttp2 } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSse } from "../modules/messages/messages.test-helpers.ts";
import { type Daemon, deployStackMissing, startNginx, startPgBouncer } from "./deploy-stack.ts";
import { startTestS3, type TestS3 } from "./s3-server.ts";
import { anonKeyOf, freePort, type ServerProcess, signInOverHttp, startServerProcess } from "./server-process.ts";
import { createTestDatabaseUrl, testDialect } from "./test-app.ts";

const ADMIN = { email: "operator@deploy.test", password: "deploy-admin-1" };
const missing = testDialect() === "postgres" ? deployStackMissing() : null;
if (missing) console.warn(`deploy-stack.test.ts skipped: ${missing}`);

describe.runIf(testDialect() === "postgres" && !missing)("deploy/: nginx and PgBouncer in front of two replicas", () => {
  let s3: TestS3;
  let database: { url: string; drop(): Promise<void> };
  let pgbouncer: Daemon & { url: string };
  let nginx: Daemon & { url: string; accessLog(): string[] };
  const replicas: ServerProcess[] = [];
  const dataDirs: string[] = [];
  let anonKey: string;
  let staff: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    database = (await createTestDatabaseUrl()) as typeof database;
    pgbouncer = await startPgBouncer(database.url, await freePort());
    for (const seed of [true, false]) {
      const dataDir = mkdtempSync(join(tmpdir(), "hikaya-deploy-"));
      dataDirs.push(dataDir);
      replicas.push(
        await startServerProcess({
          ...s3.env,
          DATABASE_URL: pgbouncer.url,
          DATABASE_LISTEN_URL: database.url,
          DATA_DIR: dataDir,
          WEB_DIST_DIR: join(dataDir, "no-web"),
          SEED_DEMO: String(seed),
          ADMIN_EMAIL: ADMIN.email,
          ADMIN_PASSWORD: ADMIN.password,
          AUTH_SCRYPT_LOG_N: "12",
          TRUST_PROXY: "1",
          RATE_LIMIT_FACTOR: "100",
          // signInPerIp is 30 per 5 minutes; at 0.2 it is 6, few enough to reach in the last test.
          AUTH_RATE_LIMIT_FACTOR: "0.2",
        }),
      );
    }
    nginx = await startNginx(
      replicas.map((r) => new URL(r.url).host),
      { http: await freePort(), tls: await freePort() },
    );
    anonKey = await anonKeyOf(nginx.url);
    // Once: the last test counts this address's sign-ins.
    staff = await signInOverHttp(nginx.url, anonKey, ADMIN);
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const replica of replicas) await replica.stop();
    await pgbouncer?.stop();
    await database?.drop();
    await s3?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** The replica nginx sent each logged request for `path` to, in order (written when the request ends). */
  async function upstreamsOf(path: string, count: number): Promise<string[]> {
    for (let i = 0; ; i++) {
      const found = nginx
        .accessLog()
        .filter((line) => line.includes(` ${path}`))
        .map((line) => /upstream=(\S+)/.exec(line)?.[1] ?? "");
      if (found.length >= count || i > 50) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("a family's message sent through nginx reaches an operator's stream on the other replica, unbuffered", async () => {
    const phone = `078${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const signUp = await fetch(`${nginx.url}/api/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ country: "JO", phoneNumber: phone, password: "deploy-pass-1" }),
    });
    expect(signUp.status).toBe(200);
    const family = (await signUp.json()) as { token: string };

    // Two operator streams, opened one after the other: round-robin puts one on each replica, so whichever replica
    // takes the message, one stream is on the other and hears it only through LISTEN/NOTIFY.
    const streams = [];
    for (let i = 0; i < 2; i++) {
      const live = await openSse(`${nginx.url}/api/admin/messages/stream?access_token=${staff}`);
      await live.ready;
      streams.push(live);
    }
    // Three messages, each heard on both streams within 1.5 s of its send being answered: far below the 25 s
    // heartbeat, so a buffering proxy would hold them back; and a LISTEN made through PgBouncer in transaction mode
    // (its session handed to others between transactions) hears nothing, and the other replica learns of the message
    // only seconds later, after its bus reconnects (measured: 8 ms here, about 4 s so).
    for (let n = 1; n <= 3; n++) {
      const text = `hello from behind nginx ${n}`;
      const sent = await fetch(`${nginx.url}/api/message/send`, {
        method: "POST",
        headers: { ...bearer(family.token), "content-type": "application/json" },
        body: JSON.stringify({ message: text, messageType: "text" }),
      });
      expect(sent.status).toBe(200);
      const message = ((await sent.json()) as { data: ChatMessage }).data;
      for (const live of streams) {
        const seen = await live.waitFor(n, 1_500);
        expect(seen[n - 1]).toMatchObject({ _id: message._id, message: text });
      }
    }
    for (const live of streams) live.close();
    const streamedBy = await upstreamsOf("/api/admin/messages/stream", 2);
    expect(new Set(streamedBy)).toEqual(new Set(replicas.map((r) => new URL(r.url).host)));
  });

  it("an operator signed in through nginx saves a versioned setting through PgBouncer; a stale save is refused", async () => {
    const headers = { ...bearer(staff), "content-type": "application/json" };
    const current = (await (await fetch(`${nginx.url}/api/admin/settings`, { headers })).json()) as {
      version: number;
      titleAr: string;
      primaryColor: string;
    };
    const save = (titleEn: string, version: number) =>
      fetch(`${nginx.url}/api/admin/settings`, {
        method: "PUT",
        headers,
        body: JSON.stringify({
          titleEn,
          titleAr: current.titleAr,
          primaryColor: current.primaryColor,
          siteUnderMaintenance: false,
          version,
        }),
      });
    const saved = await save("Hikaya behind nginx", current.version);
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { version: number }).version).toBe(current.version + 1);
    const stale = await save("An older tab", current.version);
    expect(stale.status).toBe(409);
    // Both replicas read the saved one.
    for (const replica of replicas) {
      const read = (await (await fetch(`${replica.url}/api/settings`)).json()) as { title?: { en?: string } };
      expect(JSON.stringify(read)).toContain("Hikaya behind nginx");
    }
  });

  it("serves media through nginx with Range and ETag", async () => {
    const stories = (await (await fetch(`${nginx.url}/api/admin/stories`, { headers: bearer(staff) })).json()) as {
      id: string;
    }[];
    const path = `/storage/v1/object/public/thumbnails/${stories[0]?.id}`;
    const whole = await fetch(`${nginx.url}${path}`);
    expect(whole.status).toBe(200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(16);
    const part = await fetch(`${nginx.url}${path}`, { headers: { range: "bytes=2-9" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(2, 10))).toBe(true);
    const again = await fetch(`${nginx.url}${path}`, { headers: { "if-none-match": whole.headers.get("etag") as string } });
    expect(again.status).toBe(304);
  });

  it("serves HTTP/2 on the TLS server, and sends plain HTTP there", async () => {
    const ports = { http: await freePort(), tls: await freePort() };
    const secure = await startNginx(
      replicas.map((r) => new URL(r.url).host),
      ports,
      { tls: true },
    );
    try {
      // The certificate is the test's own, made a moment ago: nothing to verify it against.
      const session = connectHttp2(secure.url, { rejectUnauthorized: false });
      const answer = await new Promise<{ status: number; body: string }>((ok, fail) => {
        session.once("error", fail);
        const stream = session.request({ ":path": "/api/health" });
        let body = "";
        let status = 0;
        stream.on("response", (headers) => {
          status = Number(headers[":status"]);
        });
        stream.on("data", (chunk) => {
          body += chunk;
        });
        stream.on("end", () => ok({ status, body }));
        stream.on("error", fail);
      });
      expect(session.alpnProtocol).toBe("h2");
      session.close();
      expect(answer.status).toBe(200);
      const plain = await fetch(`http://127.0.0.1:${ports.http}/stories?x=1`, { redirect: "manual" });
      expect(plain.status).toBe(301);
      expect(plain.headers.get("location")).toBe(`https://127.0.0.1/stories?x=1`);
    } finally {
      await secure.stop();
    }
  });

  /** A wrong-password sign-in through nginx from the local address `from`, with any headers the client adds. */
  function wrongSignIn(from: string, headers: Record<string, string> = {}): Promise<number> {
    // A new account each time, so that only the per-address limit counts these.
    const body = JSON.stringify({ email: `nobody-${randomUUID()}@deploy.test`, password: "wrong-password" });
    return new Promise((ok, fail) => {
      const url = new URL(`${nginx.url}/auth/v1/token?grant_type=password`);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          localAddress: from,
          headers: { apikey: anonKey, "content-type": "application/json", ...headers },
        },
        (res) => {
          res.resume();
          res.on("end", () => ok(res.statusCode ?? 0));
        },
      );
      req.on("error", fail);
      req.end(body);
    });
  }

  // Last: it spends 127.0.0.1's sign-ins. Loopback answers from any 127/8 address, so 127.0.0.2 is a second person.
  it("counts per-address limits by the person's address from nginx's X-Forwarded-For, never a forged one", async () => {
    const statuses: number[] = [];
    // Each attempt names another address of its own: TRUST_PROXY=1 believes only the entry nginx appended.
    for (let i = 0; i < 8; i++) statuses.push(await wrongSignIn("127.0.0.1", { "x-forwarded-for": `203.0.113.${i}` }));
    expect(statuses, statuses.join(",")).toContain(429);
    // Another address through the same nginx is not limited: nginx told the replicas who it was.
    expect(await wrongSignIn("127.0.0.2")).not.toBe(429);
  });
});
