import { errorBodySchema } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.ts";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { createTestUser, type TestUser } from "../test/test-users.ts";

// One error shape for every answer: router failures, body-parser failures, text the databases cannot store,
// absurd nesting and malformed multipart all answer 4xx in the app's shape, on SQLite and PostgreSQL alike.
let t: TestApp;
let user: TestUser;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createTestUser(t.app);
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

function expectAppError(res: { statusCode: number; body: string }, status: number, code?: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = errorBodySchema.parse(JSON.parse(res.body));
  if (code) expect(body.code).toBe(code);
  return body;
}

describe("router-level failures", () => {
  it("a bad percent-escape answers 400 in the app's shape", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/admin/stories/%E0%A4%A" });
    expectAppError(res, 400, "bad_request");
  });

  it("a path parameter over the length limit answers 414 without echoing the URL", async () => {
    const long = "x".repeat(5000);
    const res = await t.app.inject({ method: "GET", url: `/api/admin/stories/${long}`, headers: admin.headers });
    expectAppError(res, 414, "uri_too_long");
    expect(res.body).not.toContain(long.slice(0, 200));
  });

  it("body-parser failures answer in the app's shape", async () => {
    const badJson = await t.app.inject({
      method: "POST",
      url: "/api/contactSubmission",
      headers: { "content-type": "application/json" },
      payload: '{"name": ',
    });
    expectAppError(badJson, 400);
    const wrongType = await t.app.inject({
      method: "POST",
      url: "/api/contactSubmission",
      headers: { "content-type": "application/x-unknown" },
      payload: "x",
    });
    expectAppError(wrongType, 415, "unsupported_media_type");
  });
});

describe("plain-text errors of plugins", () => {
  it("a CORS preflight the cors plugin refuses answers in Supabase's shape, not plain text", async () => {
    const res = await t.app.inject({ method: "OPTIONS", url: "/auth/v1/token" });
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.json()).toMatchObject({ code: 400, error_code: "validation_failed" });
  });
});

describe("deep JSON", () => {
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  it.each([
    ["/api/message/send", 100_000],
    ["/api/contactSubmission", 100_000],
    ["/api/profile/update", 10_000], // its body limit is 64 KB
  ])("a deep array to %s (%i levels) is 400", async (url, depth) => {
    const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const res = await t.app.inject({
      method: "POST",
      url,
      headers: { ...user.headers, "content-type": "application/json" },
      payload: `{"message": ${nested}, "name": ${nested}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toMatch(/nests deeper/);
  });

  it("a deep array to an admin reply is 400 too", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: `/api/admin/conversations/${user.id}/messages`,
      headers: { ...admin.headers, "content-type": "application/json" },
      payload: `{"message": ${deep}}`,
    });
    expectAppError(res, 400, "bad_request");
  });
});

describe("text the databases cannot store", () => {
  it("a NUL in a JSON field is 400 before any database sees it (even unauthenticated)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/verify-otp",
      payload: { phone: "+962790000000\u0000", otp: "123456" },
    });
    expectAppError(res, 400, "bad_request");
  });

  it("a NUL in a path parameter, a query value or a field name is 400", async () => {
    expectAppError(await t.app.inject({ method: "GET", url: "/api/admin/stories/ab%00cd", headers: admin.headers }), 400);
    expectAppError(
      await t.app.inject({ method: "GET", url: "/api/admin/conversations?before=1%00", headers: admin.headers }),
      400,
    );
    expectAppError(
      await t.app.inject({
        method: "POST",
        url: "/api/contactSubmission",
        payload: { "na\u0000me": "x", name: "M", message: "m" },
      }),
      400,
    );
  });

  it("a lone surrogate is refused like a NUL", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/contactSubmission",
      headers: { "content-type": "application/json" },
      payload: '{"name":"M","message":"\\ud800"}',
    });
    expectAppError(res, 400, "bad_request");
  });

  it("a NUL in a multipart field is 400", async () => {
    const boundary = "----hikaya";
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\u0000\r\n--${boundary}--\r\n`;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...user.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode).toBe(400);
  });

  it("a NUL in an uploaded file's name is 400", async () => {
    const boundary = "----hikaya";
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a\u0000.webm"\r\nContent-Type: audio/webm\r\n\r\nxx\r\n--${boundary}--\r\n`;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...user.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, errorCode: "bad_request" });
  });

  it("/auth/v1 refuses a NUL in its own (Supabase) error shape", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=password",
      headers: { apikey: t.app.deps.auth.keys.anonKey },
      payload: { email: "a\u0000@b.c", password: "x" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, error_code: "validation_failed" });
  });

  it("a 20-digit cursor is 400, not a database error", async () => {
    const before = "12345678901234567890";
    expectAppError(
      await t.app.inject({
        method: "GET",
        url: `/api/admin/conversations/${user.id}/messages?before=${before}`,
        headers: admin.headers,
      }),
      400,
    );
    const res = await t.app.inject({ method: "POST", url: "/api/messages", headers: user.headers, payload: { before } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400 });
  });
});

describe("every multipart route parses through one parser", () => {
  const routes = () => [
    { method: "POST" as const, url: "/api/message/send", headers: user.headers },
    { method: "POST" as const, url: `/api/admin/conversations/${user.id}/messages`, headers: admin.headers },
    { method: "POST" as const, url: "/api/admin/uploads/image", headers: admin.headers },
    { method: "PUT" as const, url: "/api/admin/stories/none/thumbnail", headers: admin.headers },
    { method: "POST" as const, url: "/api/story/audio/add", headers: user.headers },
    { method: "POST" as const, url: "/api/profile/update", headers: user.headers },
  ];
  const b = "----hikaya";
  const bodies: Array<[string, string, string]> = [
    ["no boundary", "multipart/form-data", `--${b}\r\n`],
    ["an empty boundary", "multipart/form-data; boundary=", `--\r\n`],
    [
      "a body cut short",
      `multipart/form-data; boundary=${b}`,
      `--${b}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhel`,
    ],
    [
      "a file cut mid-way",
      `multipart/form-data; boundary=${b}`,
      `--${b}\r\nContent-Disposition: form-data; name="audio"; filename="a.webm"\r\nContent-Type: audio/webm\r\n\r\n\u001aE\u00df\u00a3 partial`,
    ],
  ];
  it.each(bodies)("%s answers 4xx in the app's shape on every multipart route", async (_name, contentType, payload) => {
    for (const route of routes()) {
      const res = await t.app.inject({ ...route, headers: { ...route.headers, "content-type": contentType }, payload });
      expect(res.statusCode, `${route.url}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${route.url}: ${res.body}`).toBeLessThan(500);
      const body = res.json();
      expect(typeof body.code === "string" || typeof body.code === "number", `${route.url}: ${res.body}`).toBe(true);
    }
  });

  it("a request that is not multipart is 415 on the upload routes", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/uploads/image",
      headers: admin.headers,
      payload: { a: 1 },
    });
    expectAppError(res, 415, "unsupported_media_type");
  });
});

describe("links and start-up", () => {
  it("PUBLIC_URL is required when NODE_ENV=production, in one line naming it", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(
      "Invalid configuration: PUBLIC_URL is required when NODE_ENV=production",
    );
    expect(loadConfig({ NODE_ENV: "production", PUBLIC_URL: "https://hikaya.example" }).publicUrl).toBe("https://hikaya.example");
  });

  it("TRUST_PROXY takes true/false, a hop count or addresses, and refuses anything else", () => {
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.1" }).trustProxy).toEqual(["10.0.0.0/8", "192.168.1.1"]);
    expect(() => loadConfig({ TRUST_PROXY: "evil" })).toThrow("Invalid configuration: TRUST_PROXY");
  });

  it("the reset link never comes from the Host header when PUBLIC_URL is unset", async () => {
    const email = `reset-${Date.now()}@test.hikaya`;
    await createTestUser(t.app, { email });
    const res = await t.app.inject({
      method: "POST",
      url: "/auth/v1/recover",
      headers: { host: "evil.example", "x-forwarded-host": "evil.example", apikey: t.app.deps.auth.keys.anonKey },
      payload: { email },
    });
    expect(res.statusCode).toBe(200);
    const [sent] = await t.app.deps.messages.list({ limit: 1, recipient: email });
    expect(sent?.body).toContain("/auth/v1/verify");
    expect(sent?.body).not.toContain("evil.example");
    expect(sent?.body).toContain(`http://localhost:${t.config.port}/auth/v1/verify`);
  });
});
