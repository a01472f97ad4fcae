import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { createTestUser } from "../../test/test-users.ts";
import { REFRESH_REUSE_GRACE_MS } from "./auth.service.ts";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Each security rule, shown failing the attacker. Realistic rate limits here (AUTH_RATE_LIMIT_FACTOR=1)
// on their own server, so the other tests' traffic does not count against them.

let s: AuthTestServer;
let strict: AuthTestServer;
beforeAll(async () => {
  [s, strict] = await Promise.all([startAuthTestServer(), startAuthTestServer({ AUTH_RATE_LIMIT_FACTOR: "1" })]);
});
afterAll(async () => {
  await Promise.all([s.close(), strict.close()]);
});
afterEach(() => {
  vi.useRealTimers();
});

let n = 0;
const email = () => `sec${++n}-${Date.now()}@users.hikaya.app`;
const phone = () => `+96278${String(1_000_000 + Math.floor(Math.random() * 8_999_999)).slice(0, 7)}`;

async function auth(
  server: AuthTestServer,
  path: string,
  init: { method?: string; body?: unknown; token?: string; raw?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${server.baseUrl}/auth/v1${path}`, {
    method: init.method ?? "POST",
    headers: {
      apikey: server.anonKey,
      "content-type": "application/json",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    ...(init.raw !== undefined ? { body: init.raw } : init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe("refresh tokens", () => {
  test("reusing a rotated refresh token after the grace interval revokes the whole session", async () => {
    const signup = await auth(s, "/signup", { body: { email: email(), password: "secret123" } });
    const first = signup.body.refresh_token as string;
    const rotated = await auth(s, "/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(rotated.status).toBe(200);
    // Within the grace interval (two tabs refreshing at once) the old token still works once more.
    const racing = await auth(s, "/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(racing.status).toBe(200);

    // The holder goes on refreshing, so the token that replaced `first` has been used.
    const used = await auth(s, "/token?grant_type=refresh_token", { body: { refresh_token: racing.body.refresh_token } });
    expect(used.status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + REFRESH_REUSE_GRACE_MS + 1000 });
    const stolen = await auth(s, "/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(stolen).toMatchObject({ status: 400, body: { error_code: "refresh_token_already_used" } });
    // The legitimate holder's newer tokens and access tokens died with the session.
    const next = await auth(s, "/token?grant_type=refresh_token", { body: { refresh_token: used.body.refresh_token } });
    expect(next).toMatchObject({ status: 400, body: { error_code: "refresh_token_not_found" } });
    const me = await auth(s, "/user", { method: "GET", token: rotated.body.access_token });
    expect(me).toMatchObject({ status: 403, body: { error_code: "session_not_found" } });
  });

  test("refresh tokens and one-time codes are stored hashed", async () => {
    const address = email();
    const signup = await auth(s, "/signup", { body: { email: address, password: "secret123" } });
    const rows = await s.app.deps.db.selectFrom("refresh_tokens").select("token_hash").execute();
    expect(rows.some((r) => r.token_hash === signup.body.refresh_token)).toBe(false);
    await auth(s, "/recover", { body: { email: address } });
    const code = await s.lastCode(address);
    const otps = await s.app.deps.db.selectFrom("one_time_tokens").select("token_hash").execute();
    expect(otps.every((r) => !r.token_hash.includes(code))).toBe(true);
    const user = await s.app.deps.db
      .selectFrom("users")
      .select("encrypted_password")
      .where("email", "=", address)
      .executeTakeFirst();
    expect(user?.encrypted_password).toMatch(/^\$scrypt\$ln=\d+,r=8,p=1\$/);
  });
});

describe("one-time codes", () => {
  test("after 5 wrong codes the 6th try is refused, even with the right code", async () => {
    const p = phone();
    expect((await auth(s, "/otp", { body: { phone: p } })).status).toBe(200);
    const code = await s.lastCode(p);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const r = await auth(s, "/verify", { body: { type: "sms", phone: p, token: wrong } });
      expect(r).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
    }
    const sixth = await auth(s, "/verify", { body: { type: "sms", phone: p, token: code } });
    expect(sixth).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
  });

  test("a code expires after 5 minutes", async () => {
    const p = phone();
    await auth(s, "/otp", { body: { phone: p } });
    const code = await s.lastCode(p);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 5 * 60_000 + 1000 });
    const late = await auth(s, "/verify", { body: { type: "sms", phone: p, token: code } });
    expect(late).toMatchObject({ status: 403, body: { error_code: "otp_expired" } });
  });
});

describe("access tokens", () => {
  test("an expired JWT is refused by /auth/v1 and by the /api guards", async () => {
    const user = await createTestUser(s.app);
    const claims = await s.app.deps.auth.tokens.verify(user.token);
    const { token } = await s.app.deps.auth.tokens.issue(
      {
        userId: user.id,
        email: claims.email,
        phone: null,
        appMetadata: claims.app_metadata,
        userMetadata: {},
        isAnonymous: false,
        sessionId: claims.session_id,
        aal: "aal1",
        amr: [],
      },
      Date.now() - 2 * 3600_000,
    );
    const me = await auth(s, "/user", { method: "GET", token });
    expect(me.status).toBe(403);
    expect(me.body.error_code).toBe("bad_jwt");
    expect(me.body.msg).toMatch(/expired/);
    const api = await s.app.inject({
      method: "POST",
      url: "/api/users",
      headers: { authorization: `Bearer ${token}` },
      payload: { id: user.id },
    });
    expect(api.statusCode).toBe(401);
    expect(api.json().code).toBe("token_expired");
  });

  test("a forged or wrongly signed JWT is refused", async () => {
    const user = await createTestUser(s.app);
    const [h, p] = user.token.split(".");
    const payload = JSON.parse(Buffer.from(p as string, "base64url").toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, app_metadata: { role: "admin" } })).toString("base64url")}.${user.token.split(".")[2]}`;
    expect((await auth(s, "/user", { method: "GET", token: forged })).status).toBe(403);
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${p}.`;
    expect((await auth(s, "/user", { method: "GET", token: none })).status).toBe(403);
    const api = await s.app.inject({
      method: "GET",
      url: "/api/admin/sms-outbox",
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(api.statusCode).toBe(401);
  });

  test("a token whose session was signed out is refused by the shared guards", async () => {
    const user = await createTestUser(s.app);
    const ok = await s.app.inject({
      method: "POST",
      url: "/api/users",
      headers: user.headers,
      payload: { id: user.id, name: "x" },
    });
    expect(ok.statusCode).toBe(200);
    await auth(s, "/logout?scope=global", { token: user.token });
    const after = await s.app.inject({
      method: "POST",
      url: "/api/users",
      headers: user.headers,
      payload: { id: user.id, name: "y" },
    });
    expect(after.statusCode).toBe(401);
  });
});

describe("permissions", () => {
  test("another person's id in POST /api/users is 403; an admin may", async () => {
    const [me, other, admin] = await Promise.all([
      createTestUser(s.app),
      createTestUser(s.app),
      createTestUser(s.app, { admin: true }),
    ]);
    const denied = await s.app.inject({
      method: "POST",
      url: "/api/users",
      headers: me.headers,
      payload: { id: other.id, name: "Mallory" },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe("forbidden");
    expect(
      await s.app.deps.db.selectFrom("profiles").selectAll().where("user_id", "=", other.id).executeTakeFirst(),
    ).toBeUndefined();
    const allowed = await s.app.inject({
      method: "POST",
      url: "/api/users",
      headers: admin.headers,
      payload: { id: other.id, name: "Set by admin" },
    });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().name).toBe("Set by admin");
  });
});

describe("rate limits (realistic limits; counters in the database on PostgreSQL)", () => {
  test("password guessing on one account meets 429 over_request_rate_limit", async () => {
    const address = email();
    await auth(strict, "/signup", { body: { email: address, password: "secret123" } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await auth(strict, "/token?grant_type=password", { body: { email: address, password: `guess-${i}` } });
      statuses.push(r.status);
      if (r.status === 429) {
        expect(r.body).toMatchObject({ code: 429, error_code: "over_request_rate_limit" });
        break;
      }
    }
    expect(statuses.slice(0, 10).every((st) => st === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Even the right password is refused while the window lasts.
    const right = await auth(strict, "/token?grant_type=password", { body: { email: address, password: "secret123" } });
    expect(right.status).toBe(429);
    // Counted in the database on both: every replica sees the counts (PostgreSQL), and a restart forgets none (SQLite).
    const counters = await strict.app.deps.db.selectFrom("rate_limits").selectAll().execute();
    expect(counters.some((c) => c.key.startsWith("signInPerAccount:") && c.count > 10)).toBe(true);
  });

  test("asking for codes for one phone meets 429 over_sms_send_rate_limit", async () => {
    const p = phone();
    let last = 0;
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 6; i++) {
      const r = await auth(strict, "/otp", { body: { phone: p }, headers: { "x-supabase-api-version": "2024-01-01" } });
      last = r.status;
      body = r.body;
    }
    expect(last).toBe(429);
    expect(body.code).toBe("over_sms_send_rate_limit");
  });
});

describe("bad input: a 4xx JSON answer, never a 500", () => {
  test.each([
    ["malformed JSON", "/signup", "{not json"],
    ["a JSON array", "/signup", "[1,2]"],
    ["wrong types", "/signup", JSON.stringify({ email: 42, password: ["x"] })],
    ["unknown grant type", "/token?grant_type=telepathy", JSON.stringify({})],
    ["no grant type", "/token", JSON.stringify({})],
    ["verify without a type", "/verify", JSON.stringify({ token: "123456" })],
  ])("%s", async (_name, path, raw) => {
    const r = await auth(s, path, { raw });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(typeof r.body.msg).toBe("string");
  });

  test("an oversized body is 413", async () => {
    const r = await auth(s, "/signup", { raw: JSON.stringify({ email: "x@y.zz", password: "a".repeat(2 * 1024 * 1024) }) });
    expect(r.status).toBe(413);
    expect(r.body.error_code).toBe("request_too_large");
  });

  test("the phone-number API answers {code, message} for bad input", async () => {
    const bad = await s.app.inject({
      method: "POST",
      url: "/api/sign-up",
      headers: { "content-type": "application/json" },
      payload: "{oops",
    });
    expect(bad.statusCode).toBe(400);
    expect(typeof bad.json().code).toBe("string");
    const missing = await s.app.inject({ method: "POST", url: "/api/sign-up", payload: { country: "+962" } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe("validation_failed");
    const nothingStored = await s.app.deps.db.selectFrom("users").select("id").where("phone", "=", "+962").execute();
    expect(nothingStored).toEqual([]);
  });
});

describe("audit log", () => {
  test("sign-up, failed and successful sign-in, and logout are recorded", async () => {
    const address = email();
    const signup = await auth(s, "/signup", { body: { email: address, password: "secret123" } });
    await auth(s, "/token?grant_type=password", { body: { email: address, password: "wrong-one" } });
    await auth(s, "/logout?scope=local", { token: signup.body.access_token });
    const actions = (await s.app.deps.auth.service.auditOf(signup.body.user.id)).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["user_signedup", "login", "login_failed", "logout"]));
  });
});
