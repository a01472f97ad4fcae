import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { errorBodySchema } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { LIVE_STREAMS_PER_ACCOUNT } from "../modules/messages/live-streams.ts";
import { createReplica, createTestApp, type TestApp, testDialect } from "../test/test-app.ts";
import { createTestUser, type TestUser } from "../test/test-users.ts";
import { mediaOrigins } from "./security-headers.ts";
import { WRITE_LIMITS } from "./write-limits.ts";

// The limits of the HTTP edge at their production values (RATE_LIMIT_FACTOR=1), behind one load balancer
// (TRUST_PROXY=1), with a 1 s body timeout so "a slow body is cut" takes a second.
let t: TestApp;
let base: string;
let port: number;
let user: TestUser;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_FACTOR: "1", TRUST_PROXY: "1", HTTP_BODY_TIMEOUT_SECONDS: "1" });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  user = await createTestUser(t.app);
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

/** Sends raw bytes and resolves with what the server answered once it closes the connection (or after `ms`). */
function rawExchange(head: string, ms: number, body?: string): Promise<{ text: string; elapsedMs: number; closed: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let closed = false;
    socket.on("data", (d) => {
      text += d.toString("utf8");
    });
    socket.on("error", () => {});
    const done = () => resolve({ text, elapsedMs: Date.now() - started, closed });
    socket.on("close", () => {
      closed = true;
      done();
    });
    socket.write(head);
    if (body) socket.write(body);
    setTimeout(() => {
      socket.destroy();
    }, ms).unref();
  });
}

const contact = (ip: string) =>
  t.app.inject({
    method: "POST",
    url: "/api/contactSubmission",
    remoteAddress: "10.0.0.1",
    headers: { "x-forwarded-for": ip },
    payload: { name: "Mona", message: "Hello" },
  });

describe("rate limits on writes", () => {
  it("contact submissions: 429 with Retry-After in the app's shape after the documented limit", async () => {
    const limit = WRITE_LIMITS["POST /api/contactSubmission"]?.perIp.limit ?? 0;
    for (let i = 0; i < limit; i++) expect((await contact("198.51.100.1")).statusCode).toBe(201);
    const refused = await contact("198.51.100.1");
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(errorBodySchema.parse(refused.json()).code).toBe("rate_limited");
    // Another address has its own count.
    expect((await contact("198.51.100.2")).statusCode).toBe(201);
  });

  it("analytics events: 429 after the documented limit per IP", async () => {
    const limit = WRITE_LIMITS["POST /api/events"]?.perIp.limit ?? 0;
    const send = () =>
      t.app.inject({
        method: "POST",
        url: "/api/events",
        remoteAddress: "10.0.0.1",
        headers: { "x-forwarded-for": "198.51.100.3" },
        payload: { events: [{ name: "landing_video_end", at: new Date().toISOString() }] },
      });
    for (let i = 0; i < limit; i++) expect((await send()).statusCode).toBe(202);
    const refused = await send();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBeDefined();
  });

  it("rotating X-Forwarded-For does not bypass the per-IP limit with TRUST_PROXY set to a hop count", async () => {
    const limit = WRITE_LIMITS["POST /api/contactSubmission"]?.perIp.limit ?? 0;
    const codes: number[] = [];
    // The client forges the leftmost entries; the load balancer appends the address it saw (the last one).
    for (let i = 0; i <= limit; i++) codes.push((await contact(`203.0.113.${i + 1}, 198.51.100.9`)).statusCode);
    expect(codes.slice(0, limit).every((c) => c === 201)).toBe(true);
    expect(codes[limit]).toBe(429);
  });

  it("a signed-in person is limited per account too, from any address", async () => {
    const rule = WRITE_LIMITS["POST /api/message/send"];
    const perAccount = rule?.perAccount?.limit ?? 0;
    const codes: number[] = [];
    for (let i = 0; i <= perAccount; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/message/send",
        remoteAddress: "10.0.0.1",
        headers: { ...user.headers, "x-forwarded-for": `192.0.2.${i + 1}` },
        payload: { message: `hello ${i}` },
      });
      codes.push(res.statusCode);
    }
    expect(codes.slice(0, perAccount).every((c) => c === 200)).toBe(true);
    expect(codes[perAccount]).toBe(429);
  });

  // Replicas run on PostgreSQL only (docs/runbook.md, "Replicas"); SQLite's one server counts in memory.
  it.runIf(testDialect() === "postgres")(
    "the counts live in the database: a second replica sees the first one's hits",
    async () => {
      const replica = await createReplica(t.config);
      try {
        const limit = WRITE_LIMITS["POST /api/contactSubmission"]?.perIp.limit ?? 0;
        const send = (app: typeof t.app) =>
          app.inject({
            method: "POST",
            url: "/api/contactSubmission",
            remoteAddress: "10.0.0.1",
            headers: { "x-forwarded-for": "198.51.100.77" },
            payload: { name: "Mona", message: "Hello" },
          });
        for (let i = 0; i < limit; i++) expect((await send(i % 2 === 0 ? t.app : replica)).statusCode).toBe(201);
        expect((await send(replica)).statusCode).toBe(429);
        expect((await send(t.app)).statusCode).toBe(429);
      } finally {
        await replica.close();
      }
    },
  );

  it("every write limit names a real route (start-up checks the table)", () => {
    const routes = t.app.printRoutes({ commonPrefix: false });
    for (const key of Object.keys(WRITE_LIMITS)) {
      const path = key.split(" ")[1] ?? "";
      expect(routes).toContain(path.split("/").pop()?.replace(/^:.*/, "") ?? "");
    }
  });
});

describe("declared sizes and timeouts", () => {
  const twoGb = String(2 * 1024 * 1024 * 1024);
  const uploads = () => [
    ["POST", "/api/story/audio/add", user.headers.authorization],
    ["POST", "/api/message/send", user.headers.authorization],
    ["POST", "/api/profile/update", user.headers.authorization],
    ["POST", `/api/admin/conversations/${user.id}/messages`, admin.headers.authorization],
    ["POST", "/api/admin/uploads/story-video", admin.headers.authorization],
    ["PUT", "/api/admin/stories/none/thumbnail", admin.headers.authorization],
  ];

  it("a declared 2 GB body is answered 413 at once on every upload route, before a byte is sent", async () => {
    for (const [method, url, authorization] of uploads()) {
      const head =
        `${method} ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${twoGb}\r\nX-Forwarded-For: 192.0.2.200\r\n\r\n`;
      const { text, elapsedMs } = await rawExchange(head, 3000);
      expect(text.split("\r\n")[0], url).toBe("HTTP/1.1 413 Payload Too Large");
      expect(text).toContain('"payload_too_large"');
      expect(elapsedMs, url).toBeLessThan(2000);
    }
  });

  it("a slow body is cut with 408 in the app's shape within the body timeout", async () => {
    const head =
      "POST /api/contactSubmission HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      "Content-Length: 100\r\nX-Forwarded-For: 192.0.2.201\r\n\r\n";
    const { text, elapsedMs, closed } = await rawExchange(head, 5000, '{"na');
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(text).toContain('"request_timeout"');
    expect(closed).toBe(true);
    expect(elapsedMs).toBeGreaterThanOrEqual(900);
    expect(elapsedMs).toBeLessThan(3000);
  });

  it("an upload that trickles below the minimum rate is cut with 408", async () => {
    const head =
      `POST /api/story/audio/add HTTP/1.1\r\nHost: x\r\nAuthorization: ${user.headers.authorization}\r\n` +
      "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 1000000\r\nX-Forwarded-For: 192.0.2.202\r\n\r\n";
    const { text, elapsedMs, closed } = await rawExchange(head, 6000, "--x\r\n");
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(text).toContain('"request_timeout"');
    expect(closed).toBe(true);
    expect(elapsedMs).toBeLessThan(4000);
  });

  it("a malformed request line is answered 400 in the app's shape", async () => {
    const { text } = await rawExchange("GARBAGE\r\n\r\n", 2000);
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(text).toContain('"code":"bad_request"');
  });

  it("the server's own timeouts are set", () => {
    expect(t.app.server.headersTimeout).toBe(20_000);
    expect(t.app.server.requestTimeout).toBe(3_600_000);
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    expect(t.app.server.timeout).toBe(120_000);
  });
});

describe("live-chat streams per account", () => {
  it(`refuses stream number ${LIVE_STREAMS_PER_ACCOUNT + 1} with 429, and takes one again once another closes`, async () => {
    const person = await createTestUser(t.app);
    const open = async () => {
      const controller = new AbortController();
      const res = await fetch(`${base}/api/messages/stream`, { headers: person.headers, signal: controller.signal });
      return { res, close: () => controller.abort() };
    };
    const streams = [];
    for (let i = 0; i < LIVE_STREAMS_PER_ACCOUNT; i++) {
      const s = await open();
      expect(s.res.status).toBe(200);
      streams.push(s);
    }
    const refused = await open();
    expect(refused.res.status).toBe(429);
    expect(errorBodySchema.parse(await refused.res.json()).code).toBe("rate_limited");
    streams.pop()?.close();
    let again = await open();
    for (let i = 0; i < 50 && again.res.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await open();
    }
    expect(again.res.status).toBe(200);
    again.close();
    for (const s of streams) s.close();
  });

  it("counts tabs opening at the same moment too: one over the cap is refused, whichever it is", async () => {
    const person = await createTestUser(t.app, { admin: true });
    const controllers: AbortController[] = [];
    const open = (path: string) => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(`${base}${path}`, { headers: person.headers, signal: controller.signal });
    };
    // Both stream routes count for the same person.
    const answers = await Promise.all(
      Array.from({ length: LIVE_STREAMS_PER_ACCOUNT + 1 }, (_, i) =>
        open(i % 2 ? "/api/messages/stream" : "/api/admin/messages/stream"),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(LIVE_STREAMS_PER_ACCOUNT).fill(200), 429]);
    for (const c of controllers) c.abort();
  });
});

describe("security headers", () => {
  it("every answer carries the CSP, frame-ancestors 'none', Referrer-Policy and nosniff; no HSTS over http", async () => {
    for (const url of ["/api/health", "/api/nothing-here", "/auth/v1/settings"]) {
      const res = await t.app.inject({ method: "GET", url });
      const csp = String(res.headers["content-security-policy"]);
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(res.headers["x-content-type-options"], url).toBe("nosniff");
      expect(res.headers["referrer-policy"], url).toBe("strict-origin-when-cross-origin");
      expect(res.headers["x-frame-options"], url).toBe("DENY");
      expect(res.headers["strict-transport-security"], url).toBeUndefined();
    }
  });

  it("media served from a CDN or S3 (STORAGE_DELIVERY=redirect) are allowed by the CSP; proxied media need nothing", () => {
    const s3 = (env: Record<string, string>) =>
      loadConfig({ STORAGE_DRIVER: "s3", S3_BUCKET: "media", S3_REGION: "eu-west-1", ...env }).storage;
    expect(mediaOrigins(s3({}))).toEqual([]);
    expect(mediaOrigins(s3({ STORAGE_DELIVERY: "redirect", STORAGE_PUBLIC_URL: "https://cdn.example/media" }))).toEqual([
      "https://cdn.example",
      "https://media.s3.eu-west-1.amazonaws.com",
      "https://s3.eu-west-1.amazonaws.com",
    ]);
    expect(mediaOrigins(s3({ STORAGE_DELIVERY: "redirect", S3_ENDPOINT: "https://minio.example:9000" }))).toEqual([
      "https://minio.example:9000",
    ]);
    expect(mediaOrigins(loadConfig({}).storage)).toEqual([]);
  });

  it("HSTS when PUBLIC_URL is https", async () => {
    const secure = await createTestApp({ PUBLIC_URL: "https://hikaya.example" });
    try {
      const res = await secure.app.inject({ method: "GET", url: "/api/health" });
      expect(res.headers["strict-transport-security"]).toMatch(/max-age=31536000/);
    } finally {
      await secure.close();
    }
  });
});
