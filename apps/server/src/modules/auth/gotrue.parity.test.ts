import { createClient } from "@supabase/supabase-js";
import { decodeJwt, SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { createTestApp } from "../../test/test-app.ts";
import { REFRESH_REUSE_GRACE_MS } from "./auth.service.ts";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Where a supabase-js app could tell Hikaya from Supabase Auth: each answer checked for Supabase's status,
// error_code and message, through supabase-js where it can send the request and raw HTTP where it cannot.

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer();
});
afterAll(() => s.close());
afterEach(() => {
  vi.useRealTimers();
});

let n = 0;
const uniqueEmail = () => `parity${++n}-${Date.now()}@users.hikaya.app`;

async function call(path: string, init: { method?: string; body?: unknown; token?: string; apikey?: string } = {}) {
  const res = await fetch(`${s.baseUrl}/auth/v1${path}`, {
    method: init.method ?? "POST",
    headers: {
      apikey: init.apikey ?? s.anonKey,
      "content-type": "application/json",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe("refresh-token reuse", () => {
  test("a client that lost the answer to its refresh recovers with the old token after the reuse interval", async () => {
    const signup = await call("/signup", { body: { email: uniqueEmail(), password: "secret123" } });
    const first = signup.body.refresh_token as string;
    const lost = await call("/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(lost.status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + REFRESH_REUSE_GRACE_MS + 1000 });
    const recovered = await call("/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(recovered.status).toBe(200);
    const me = await call("/user", { method: "GET", token: recovered.body.access_token });
    expect(me.status).toBe(200);
    const next = await call("/token?grant_type=refresh_token", { body: { refresh_token: recovered.body.refresh_token } });
    expect(next.status).toBe(200);
  });

  test("reuse of an older token, whose child was used, still ends the session", async () => {
    const signup = await call("/signup", { body: { email: uniqueEmail(), password: "secret123" } });
    const first = signup.body.refresh_token as string;
    const second = await call("/token?grant_type=refresh_token", { body: { refresh_token: first } });
    const third = await call("/token?grant_type=refresh_token", { body: { refresh_token: second.body.refresh_token } });
    expect(third.status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + REFRESH_REUSE_GRACE_MS + 1000 });
    const stolen = await call("/token?grant_type=refresh_token", { body: { refresh_token: first } });
    expect(stolen).toEqual({
      status: 400,
      body: { code: 400, error_code: "refresh_token_already_used", msg: "Invalid Refresh Token: Already Used" },
    });
    const holder = await call("/token?grant_type=refresh_token", { body: { refresh_token: third.body.refresh_token } });
    expect(holder).toMatchObject({ status: 400, body: { error_code: "refresh_token_not_found" } });
  });
});

describe("features that are off answer with Supabase's errors", () => {
  test("anonymous sign-in: 422 anonymous_provider_disabled", async () => {
    const { error } = await s.client().auth.signInAnonymously();
    expect(error).toMatchObject({ status: 422, code: "anonymous_provider_disabled", message: "Anonymous sign-ins are disabled" });
  });

  test("the web3 grant: 422 web3_provider_disabled; an unknown grant type: 400 invalid_credentials", async () => {
    const web3 = await call("/token?grant_type=web3", { body: { chain: "ethereum", message: "m", signature: "0x" } });
    expect(web3).toEqual({
      status: 422,
      body: { code: 422, error_code: "web3_provider_disabled", msg: "Web3 provider is disabled" },
    });
    const unknown = await call("/token?grant_type=client_credentials", { body: {} });
    expect(unknown).toEqual({
      status: 400,
      body: { code: 400, error_code: "invalid_credentials", msg: "unsupported_grant_type" },
    });
  });

  test("the OAuth 2.1 server routes: 404 feature_disabled", async () => {
    const disabled = { status: 404, code: "feature_disabled", message: "OAuth server is disabled" };
    const sb = s.client();
    await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    expect((await sb.auth.oauth.getAuthorizationDetails("11111111-1111-4111-8111-111111111111")).error).toMatchObject(disabled);
    expect((await sb.auth.oauth.listGrants()).error).toMatchObject(disabled);
    const admin = s.adminClient().auth.admin.oauth;
    expect((await admin.listClients()).error).toMatchObject(disabled);
    expect((await admin.createClient({ client_name: "x", redirect_uris: ["https://example.com/cb"] })).error).toMatchObject(
      disabled,
    );
    const discovery = await fetch(`${s.baseUrl}/auth/v1/.well-known/oauth-authorization-server`);
    expect(discovery.status).toBe(404);
    expect(await discovery.json()).toMatchObject({ error_code: "feature_disabled", msg: "OAuth server is disabled" });
    // The admin routes still check who is asking first.
    const asAnon = await call("/admin/oauth/clients", { method: "GET", token: s.anonKey });
    expect(asAnon.status).toBe(403);
  });
});

describe("validation as GoTrue does it", () => {
  test("e-mail addresses: GoTrue's format check", async () => {
    const sb = s.client();
    const bad = await sb.auth.signUp({ email: "xx:;x@x.x", password: "secret123" });
    expect(bad.error).toMatchObject({
      status: 400,
      code: "validation_failed",
      message: "Unable to validate email address: invalid format",
    });
    const otp = await sb.auth.signInWithOtp({ email: "a b@example.com" });
    expect(otp.error).toMatchObject({ status: 400, message: "Unable to validate email address: invalid format" });
    // GoTrue's check takes a single-label host.
    const local = await sb.auth.signUp({ email: `ok${Date.now()}@localhost`, password: "secret123" });
    expect(local.error).toBeNull();
  });

  test("GET /admin/users with a negative page: 400 Bad Pagination Parameters", async () => {
    const admin = s.adminClient().auth.admin;
    const { error } = await admin.listUsers({ page: -1, perPage: 10 });
    expect(error).toMatchObject({ status: 400 });
    expect(error?.message).toMatch(/^Bad Pagination Parameters/);
    const perPage = await call("/admin/users?per_page=abc", { method: "GET", token: s.serviceRoleKey });
    expect(perPage).toMatchObject({ status: 400, body: { error_code: "validation_failed" } });
    expect(perPage.body.msg).toMatch(/^Bad Pagination Parameters/);
  });

  test("PUT /user with app_metadata by a person who is not an admin: 403 not_admin, nothing changes", async () => {
    const sb = s.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const token = data.session?.access_token as string;
    const res = await call("/user", { method: "PUT", token, body: { app_metadata: { role: "admin" } } });
    expect(res).toEqual({
      status: 403,
      body: { code: 403, error_code: "not_admin", msg: "Updating app_metadata requires admin privileges" },
    });
    const me = await call("/user", { method: "GET", token });
    expect(me.body.app_metadata.role).toBeUndefined();
  });
});

describe("phone numbers on /auth/v1 follow Supabase's rule", () => {
  test("any 2 to 15 digits after '+': an unknown number is 'Token has expired or is invalid', not a format error", async () => {
    const sb = s.client();
    const verify = await sb.auth.verifyOtp({ phone: "+99912345678", token: "123456", type: "sms" });
    expect(verify.error).toMatchObject({ status: 403, code: "otp_expired", message: "Token has expired or is invalid" });
    const signUp = await sb.auth.signUp({ phone: `+999${String(Date.now()).slice(-8)}`, password: "secret123" });
    expect(signUp.error).toBeNull();
    const tooLong = await sb.auth.verifyOtp({ phone: "+1234567890123456", token: "123456", type: "sms" });
    expect(tooLong.error).toMatchObject({ status: 400, message: "Invalid phone number format (E.164 required)" });
    const leadingZero = await sb.auth.signInWithOtp({ phone: "0791234567" });
    expect(leadingZero.error).toMatchObject({ status: 400, message: "Invalid phone number format (E.164 required)" });
  });

  test("the /api phone routes keep the per-country check", async () => {
    const res = await fetch(`${s.baseUrl}/api/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ country: "+962", phoneNumber: "12345", password: "secret123", agreeToReminder: false }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("invalid_phone");
  });
});

describe("the access token's issuer is an absolute URL", () => {
  test("PUBLIC_URL + /auth/v1 when it is set", async () => {
    const { data } = await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const claims = decodeJwt(data.session?.access_token as string);
    expect(claims.iss).toBe(`${s.baseUrl}/auth/v1`);
  });

  test("the default origin (http://localhost:<PORT>) + /auth/v1 without PUBLIC_URL, never the client's Host header", async () => {
    const t = await createTestApp();
    try {
      const res = await t.app.inject({
        method: "POST",
        url: "/auth/v1/signup",
        headers: { apikey: t.app.deps.auth.keys.anonKey, host: "family.example:8443" },
        payload: { email: uniqueEmail(), password: "secret123" },
      });
      expect(res.statusCode).toBe(200);
      expect(decodeJwt(res.json().access_token).iss).toBe(`http://localhost:${t.config.port}/auth/v1`);
    } finally {
      await t.close();
    }
  });
});

describe("a supabase_admin role token is accepted where service_role is", () => {
  test("admin calls with a supabase_admin JWT signed by the project's key", async () => {
    const { current } = s.app.deps.auth.keys;
    const token = await new SignJWT({ role: "supabase_admin" })
      .setProtectedHeader({ alg: "ES256", kid: current.kid, typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(current.privateKey);
    const admin = createClient(s.baseUrl, token, { auth: { persistSession: false, autoRefreshToken: false } }).auth.admin;
    const email = uniqueEmail();
    const created = await admin.createUser({ email, password: "secret123", email_confirm: true });
    expect(created.error).toBeNull();
    expect((await admin.listUsers({ page: 1, perPage: 1 })).error).toBeNull();
    // A role the project does not sign for is still refused.
    const other = await new SignJWT({ role: "postgres" })
      .setProtectedHeader({ alg: "ES256", kid: current.kid, typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(current.privateKey);
    const refused = await call("/admin/users", { method: "GET", token: other, apikey: other });
    expect(refused.status).toBe(401);
  });
});

describe("CORS as Supabase answers it", () => {
  const preflight = (base: string, origin: string, method: string) =>
    fetch(`${base}/auth/v1/user`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        "access-control-request-headers": "apikey,authorization,content-type,x-client-info,x-supabase-api-version",
      },
    });

  test("any origin by default, without credentials; every method supabase-js uses; Supabase's exposed headers", async () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const res = await preflight(s.baseUrl, "http://elsewhere.example:5173", method);
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("access-control-allow-methods")?.split(/, */)).toContain(method);
      const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase().split(/, */) ?? [];
      for (const header of ["apikey", "authorization", "content-type", "x-client-info", "x-supabase-api-version"])
        expect(allowed).toContain(header);
    }
    const list = await fetch(`${s.baseUrl}/auth/v1/admin/users?page=1&per_page=1`, {
      headers: { apikey: s.serviceRoleKey, authorization: `Bearer ${s.serviceRoleKey}`, origin: "http://elsewhere.example" },
    });
    expect(list.headers.get("access-control-expose-headers")?.split(/, */)).toEqual([
      "X-Total-Count",
      "Link",
      "X-Supabase-Api-Version",
    ]);
  });

  test("AUTH_CORS_ORIGINS names the origins that may call; others get no CORS headers", async () => {
    const t = await createTestApp({ AUTH_CORS_ORIGINS: "https://app.example, https://console.example/" });
    try {
      const ask = (origin: string) =>
        t.app.inject({
          method: "OPTIONS",
          url: "/auth/v1/user",
          headers: { origin, "access-control-request-method": "PUT" },
        });
      expect((await ask("https://console.example")).headers["access-control-allow-origin"]).toBe("https://console.example");
      expect((await ask("https://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
    } finally {
      await t.close();
    }
    await expect(createTestApp({ AUTH_CORS_ORIGINS: "app.example/path" })).rejects.toThrow(/AUTH_CORS_ORIGINS/);
  });
});

describe("forged, expired, revoked, other-user and aal1 tokens on every user route", () => {
  const routes: [string, string][] = [
    ["GET", "/user"],
    ["PUT", "/user"],
    ["POST", "/logout"],
    ["GET", "/reauthenticate"],
    ["POST", "/factors"],
    ["POST", "/factors/11111111-1111-4111-8111-111111111111/challenge"],
    ["POST", "/factors/11111111-1111-4111-8111-111111111111/verify"],
    ["DELETE", "/factors/11111111-1111-4111-8111-111111111111"],
  ];

  test("no token 401 no_authorization; forged, expired and signed-out tokens 403 as GoTrue", async () => {
    const { data } = await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const token = data.session?.access_token as string;
    const [head, payload] = token.split(".");
    const forged = `${head}.${payload}.${"A".repeat(86)}`;
    const { current } = s.app.deps.auth.keys;
    const claims = decodeJwt(token);
    const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })
      .setProtectedHeader({ alg: "ES256", kid: current.kid, typ: "JWT" })
      .sign(current.privateKey);
    const signedOut = (await s.client().auth.signInWithPassword({ email: data.user?.email as string, password: "secret123" }))
      .data.session?.access_token as string;
    await call("/logout?scope=local", { token: signedOut });

    for (const [method, path] of routes) {
      const body = method === "GET" ? undefined : {};
      expect(await call(path, { method, body }), `${method} ${path}`).toMatchObject({
        status: 401,
        body: { error_code: "no_authorization", msg: "This endpoint requires a valid Bearer token" },
      });
      expect(await call(path, { method, body, token: forged }), `${method} ${path}`).toMatchObject({
        status: 403,
        body: { error_code: "bad_jwt" },
      });
      const late = await call(path, { method, body, token: expired });
      expect(late, `${method} ${path}`).toMatchObject({ status: 403, body: { error_code: "bad_jwt" } });
      expect(late.body.msg).toMatch(/token is expired/);
      expect(await call(path, { method, body, token: signedOut }), `${method} ${path}`).toMatchObject({
        status: 403,
        body: { error_code: "session_not_found", msg: "Session from session_id claim in JWT does not exist" },
      });
    }
  });

  test("another person's factor is 404 mfa_factor_not_found on challenge, verify and unenroll", async () => {
    const owner = s.client();
    await owner.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const factor = await owner.auth.mfa.enroll({ factorType: "totp", friendlyName: "owner's" });
    const id = factor.data?.id as string;
    const other = (await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" })).data.session
      ?.access_token as string;
    for (const [method, path] of [
      ["POST", `/factors/${id}/challenge`],
      ["POST", `/factors/${id}/verify`],
      ["DELETE", `/factors/${id}`],
    ] as const)
      expect(await call(path, { method, body: { challenge_id: id, code: "123456" }, token: other })).toMatchObject({
        status: 404,
        body: { error_code: "mfa_factor_not_found", msg: "Factor not found" },
      });
    expect((await owner.auth.mfa.listFactors()).data?.all.map((f) => f.id)).toEqual([id]);
  });
});
