import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Protections that once had no test: each test here fails when its protection is removed. Over HTTP only, with
// the production rate limits (AUTH_RATE_LIMIT_FACTOR=1). TRUST_PROXY lets each test speak from its own address
// (X-Forwarded-For), so one test's per-IP counters never count against another's.

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer({ AUTH_RATE_LIMIT_FACTOR: "1", TRUST_PROXY: "true" });
});
afterAll(() => s.close());

let n = 0;
const email = () => `guard${++n}-${Date.now()}@users.hikaya.app`;
const phone = () => `+96279${String(1_000_000 + ++n).slice(-7)}`;
let lastIp = 0;
/** A fresh client address for one test (192.0.2.0/24 is for documentation: never a real client). */
const newIp = () => `192.0.2.${++lastIp}`;

interface Call {
  method?: string;
  body?: unknown;
  token?: string;
  ip?: string;
  apikey?: string;
}

async function auth(path: string, init: Call = {}) {
  const res = await fetch(`${s.baseUrl}/auth/v1${path}`, {
    method: init.method ?? "POST",
    redirect: "manual",
    headers: {
      apikey: init.apikey ?? s.anonKey,
      "content-type": "application/json",
      "x-supabase-api-version": "2024-01-01", // errors as { code: "<error code>", message }
      ...(init.ip ? { "x-forwarded-for": init.ip } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, location: res.headers.get("location"), body: text ? JSON.parse(text) : null };
}

const asAdmin = (path: string, init: Call = {}) => auth(path, { ...init, apikey: s.serviceRoleKey, token: s.serviceRoleKey });

/** Calls `attempt` until it answers 429; returns how many calls were answered before that one. */
async function callsBefore429(attempt: (i: number) => Promise<{ status: number; body: Record<string, unknown> }>, max: number) {
  for (let i = 0; i < max; i++) {
    const r = await attempt(i);
    if (r.status === 429) return { answered: i, errorCode: r.body.code };
    expect(r.status, `call ${i + 1}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
  }
  return { answered: max, errorCode: undefined };
}

describe("TOTP codes", () => {
  test("a code that verified once is refused the second time (replay)", async () => {
    const ip = newIp();
    const signUp = await auth("/signup", { ip, body: { email: email(), password: "secret123" } });
    const token = signUp.body.access_token as string;
    const factor = await auth("/factors", { ip, token, body: { factor_type: "totp", friendly_name: "phone" } });
    expect(factor.status).toBe(200);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.body.totp.secret) });
    const code = totp.generate();

    const first = await auth(`/factors/${factor.body.id}/challenge`, { ip, token });
    const ok = await auth(`/factors/${factor.body.id}/verify`, { ip, token, body: { challenge_id: first.body.id, code } });
    expect(ok.status).toBe(200);

    const second = await auth(`/factors/${factor.body.id}/challenge`, { ip, token: ok.body.access_token });
    const replay = await auth(`/factors/${factor.body.id}/verify`, {
      ip,
      token: ok.body.access_token,
      body: { challenge_id: second.body.id, code },
    });
    expect(replay.status).toBe(422);
    expect(replay.body).toMatchObject({ code: "mfa_verification_failed" });
  });
});

describe("redirect_to", () => {
  test("a link's redirect to another site lands on this site instead", async () => {
    const address = email();
    await asAdmin("/admin/users", { body: { email: address, password: "secret123", email_confirm: true } });
    const link = await asAdmin("/admin/generate_link?redirect_to=https%3A%2F%2Fevil.example%2Fsteal", {
      body: { type: "magiclink", email: address, redirect_to: "https://evil.example/steal" },
    });
    expect(link.status).toBe(200);
    const actionLink = new URL(link.body.action_link as string);
    // The link may carry what was asked; following it must not leave the site.
    const followed = await fetch(`${s.baseUrl}${actionLink.pathname}${actionLink.search}`, { redirect: "manual" });
    expect(followed.status).toBe(303);
    const location = new URL(followed.headers.get("location") as string, s.baseUrl);
    expect(location.origin).toBe(new URL(s.baseUrl).origin);
    expect(location.hash).toContain("access_token="); // the link worked: only the target was replaced

    for (const target of ["https://evil.example/", "//evil.example/x", "https://evil.example@127.0.0.1.evil.example/"]) {
      const bogus = await fetch(
        `${s.baseUrl}/auth/v1/verify?type=magiclink&token=not-a-real-token&redirect_to=${encodeURIComponent(target)}`,
        { redirect: "manual" },
      );
      expect(bogus.status).toBe(303);
      expect(new URL(bogus.headers.get("location") as string, s.baseUrl).origin).toBe(new URL(s.baseUrl).origin);
    }
  });

  test("/authorize never sends anyone to another site", async () => {
    const res = await auth("/authorize?provider=google&redirect_to=https%3A%2F%2Fevil.example%2F", { method: "GET" });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });
});

describe("banned users", () => {
  test("cannot sign in, refresh or use the access token they had; unbanned, they can sign in again", async () => {
    const ip = newIp();
    const address = email();
    const created = await asAdmin("/admin/users", { body: { email: address, password: "secret123", email_confirm: true } });
    const session = await auth("/token?grant_type=password", { ip, body: { email: address, password: "secret123" } });
    expect(session.status).toBe(200);

    expect((await asAdmin(`/admin/users/${created.body.id}`, { method: "PUT", body: { ban_duration: "24h" } })).status).toBe(200);
    const signIn = await auth("/token?grant_type=password", { ip, body: { email: address, password: "secret123" } });
    expect(signIn.status).toBe(400);
    expect(signIn.body).toMatchObject({ code: "user_banned" });
    const refresh = await auth("/token?grant_type=refresh_token", { ip, body: { refresh_token: session.body.refresh_token } });
    expect(refresh.status).toBeGreaterThanOrEqual(400);
    expect(refresh.body.access_token).toBeUndefined();
    expect((await auth("/user", { method: "GET", ip, token: session.body.access_token })).status).toBe(403);

    await asAdmin(`/admin/users/${created.body.id}`, { method: "PUT", body: { ban_duration: "none" } });
    expect((await auth("/token?grant_type=password", { ip, body: { email: address, password: "secret123" } })).status).toBe(200);
  });
});

describe("rate-limit buckets (production limits)", () => {
  test("signInPerIp: 30 sign-ins from one address in 5 minutes, whichever accounts", async () => {
    const ip = newIp();
    const r = await callsBefore429(
      () => auth("/token?grant_type=password", { ip, body: { email: email(), password: "wrong-password" } }),
      40,
    );
    expect(r).toEqual({ answered: 30, errorCode: "over_request_rate_limit" });
  });

  test("signUpPerIp: 30 sign-ups from one address in an hour", async () => {
    const ip = newIp();
    const r = await callsBefore429(() => auth("/signup", { ip, body: { email: email(), password: "secret123" } }), 40);
    expect(r).toEqual({ answered: 30, errorCode: "over_request_rate_limit" });
  });

  test("otpSendPerIp: 30 code requests from one address in an hour, whichever recipients", async () => {
    const ip = newIp();
    const r = await callsBefore429(() => auth("/otp", { ip, body: { phone: phone() } }), 40);
    expect(r).toEqual({ answered: 30, errorCode: "over_request_rate_limit" });
  });

  test("verifyPerIp: 30 code checks from one address in 5 minutes, whichever accounts", async () => {
    const ip = newIp();
    const r = await callsBefore429(() => auth("/verify", { ip, body: { type: "sms", phone: phone(), token: "123456" } }), 40);
    expect(r).toEqual({ answered: 30, errorCode: "over_request_rate_limit" });
  });

  test("verifyPerAccount: 10 code guesses for one phone in 15 minutes, from however many addresses", async () => {
    const target = phone();
    expect((await auth("/otp", { ip: newIp(), body: { phone: target } })).status).toBe(200);
    const r = await callsBefore429(
      (i) => auth("/verify", { ip: newIp(), body: { type: "sms", phone: target, token: String(100000 + i) } }),
      20,
    );
    expect(r).toEqual({ answered: 10, errorCode: "over_request_rate_limit" });
  });

  test("recoverPerIp: 30 password-reset requests from one address in an hour", async () => {
    const ip = newIp();
    const r = await callsBefore429(() => auth("/recover", { ip, body: { email: email() } }), 40);
    expect(r).toEqual({ answered: 30, errorCode: "over_request_rate_limit" });
  });

  test("refreshPerIp: 150 refreshes from one address in 5 minutes", async () => {
    const ip = newIp();
    const r = await callsBefore429(
      (i) => auth("/token?grant_type=refresh_token", { ip, body: { refresh_token: `not-a-token-${i}` } }),
      160,
    );
    expect(r).toEqual({ answered: 150, errorCode: "over_request_rate_limit" });
  });

  test("mfaVerifyPerUser: 15 TOTP checks for one person in 5 minutes, from however many addresses", async () => {
    const signUp = await auth("/signup", { ip: newIp(), body: { email: email(), password: "secret123" } });
    const token = signUp.body.access_token as string;
    const factor = await auth("/factors", { ip: newIp(), token, body: { factor_type: "totp", friendly_name: "phone" } });
    const challenge = await auth(`/factors/${factor.body.id}/challenge`, { ip: newIp(), token });
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.body.totp.secret) });
    const now = Date.now();
    const valid = [-30_000, 0, 30_000].map((skew) => totp.generate({ timestamp: now + skew }));
    const wrong = ["000000", "111111", "222222", "333333"].find((c) => !valid.includes(c));
    const r = await callsBefore429(
      () =>
        auth(`/factors/${factor.body.id}/verify`, {
          ip: newIp(),
          token,
          body: { challenge_id: challenge.body.id, code: wrong },
        }),
      20,
    );
    expect(r).toEqual({ answered: 15, errorCode: "over_request_rate_limit" });
  });
});
