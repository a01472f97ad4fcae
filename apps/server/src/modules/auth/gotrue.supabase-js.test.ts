import type { AuthChangeEvent } from "@supabase/supabase-js";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Every call the issue lists, made through the unmodified @supabase/supabase-js client against the
// running server (SQLite, or PostgreSQL with TEST_DIALECT=postgres).

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer();
});
afterAll(() => s.close());

let n = 0;
const uniqueEmail = () => `person${++n}-${Date.now()}@users.hikaya.app`;
const uniquePhone = () => `+96279${String(1_000_000 + Math.floor(Math.random() * 8_999_999)).slice(0, 7)}`;
const totpCode = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();

describe("sign-up and sign-in", () => {
  test("signUp with email + password returns a session and a Supabase-shaped user", async () => {
    const sb = s.client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const email = uniqueEmail();
    const { data, error } = await sb.auth.signUp({ email, password: "secret123", options: { data: { name: "Lina" } } });
    expect(error).toBeNull();
    expect(data.session?.token_type).toBe("bearer");
    expect(data.session?.expires_in).toBe(3600);
    expect(data.session?.refresh_token).toMatch(/^[\w-]{40,}$/);
    const user = data.user;
    expect(user).toMatchObject({
      aud: "authenticated",
      role: "authenticated",
      email,
      phone: "",
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: { name: "Lina" },
      is_anonymous: false,
    });
    expect(user?.email_confirmed_at).toBeTruthy();
    expect(user?.identities?.[0]).toMatchObject({
      provider: "email",
      user_id: user?.id,
      identity_data: { email, sub: user?.id },
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toContain("SIGNED_IN");
  });

  test("signUp with phone + password; the phone comes back without '+', like Supabase", async () => {
    const phone = uniquePhone();
    const { data, error } = await s.client().auth.signUp({ phone, password: "secret123" });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe(phone.slice(1));
    expect(data.user?.email).toBe("");
    expect(data.user?.app_metadata).toEqual({ provider: "phone", providers: ["phone"] });
    expect(data.session?.access_token).toBeTruthy();
  });

  test("sign-up errors carry Supabase's codes and the spec's messages", async () => {
    const sb = s.client();
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123" });
    const dup = await sb.auth.signUp({ email, password: "secret123" });
    expect(dup.error).toMatchObject({ status: 422, code: "user_already_exists", message: "User already registered" });
    const weak = await sb.auth.signUp({ email: uniqueEmail(), password: "123" });
    expect(weak.error).toMatchObject({
      status: 422,
      code: "weak_password",
      message: "Password should be at least 6 characters.",
    });
    expect(weak.error?.name).toBe("AuthWeakPasswordError");
    const badPhone = await sb.auth.signUp({ phone: "12ab", password: "secret123" });
    expect(badPhone.error).toMatchObject({
      status: 400,
      code: "validation_failed",
      message: "Invalid phone number format (E.164 required)",
    });
  });

  test("signInWithPassword by email and by phone; wrong password is invalid_credentials", async () => {
    const email = uniqueEmail();
    const phone = uniquePhone();
    await s.client().auth.signUp({ email, password: "secret123" });
    await s.client().auth.signUp({ phone, password: "secret456" });
    const byEmail = await s.client().auth.signInWithPassword({ email, password: "secret123" });
    expect(byEmail.error).toBeNull();
    expect(byEmail.data.session?.user.email).toBe(email);
    const byPhone = await s.client().auth.signInWithPassword({ phone, password: "secret456" });
    expect(byPhone.error).toBeNull();
    expect(byPhone.data.user?.phone).toBe(phone.slice(1));
    const wrong = await s.client().auth.signInWithPassword({ email, password: "nope-nope" });
    expect(wrong.error).toMatchObject({ status: 400, code: "invalid_credentials", message: "Invalid login credentials" });
    const unknown = await s.client().auth.signInWithPassword({ email: uniqueEmail(), password: "secret123" });
    expect(unknown.error?.code).toBe("invalid_credentials");
  });
});

describe("session calls", () => {
  test("getSession, getUser and getClaims (verified against /.well-known/jwks.json)", async () => {
    const sb = s.client();
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123" });
    const session = (await sb.auth.getSession()).data.session;
    expect(session?.user.email).toBe(email);
    const { data: userData, error } = await sb.auth.getUser();
    expect(error).toBeNull();
    expect(userData.user?.id).toBe(session?.user.id);
    const claims = await sb.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims).toMatchObject({
      sub: session?.user.id,
      aud: "authenticated",
      role: "authenticated",
      email,
      phone: "",
      aal: "aal1",
      is_anonymous: false,
    });
    expect(claims.data?.claims.session_id).toBeTruthy();
    expect(claims.data?.claims.amr?.[0]).toMatchObject({ method: "password" });
    expect(claims.data?.header.kid).toBe(s.app.deps.auth.keys.current.kid);
  });

  test("updateUser: data, password (USER_UPDATED), then the new password signs in", async () => {
    const sb = s.client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123", options: { data: { a: 1 } } });
    const updated = await sb.auth.updateUser({ data: { b: 2 } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toEqual({ a: 1, b: 2 });
    const pw = await sb.auth.updateUser({ password: "new-secret-1" });
    expect(pw.error).toBeNull();
    expect(events).toContain("USER_UPDATED");
    expect((await s.client().auth.signInWithPassword({ email, password: "new-secret-1" })).error).toBeNull();
    expect((await s.client().auth.signInWithPassword({ email, password: "secret123" })).error?.code).toBe("invalid_credentials");
  });

  test("updateUser phone sends a phone_change code; resend sends another; verifyOtp phone_change applies it", async () => {
    const sb = s.client();
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123" });
    const newPhone = uniquePhone();
    const asked = await sb.auth.updateUser({ phone: newPhone });
    expect(asked.error).toBeNull();
    expect(asked.data.user?.phone).toBe("");
    expect(asked.data.user?.new_phone).toBe(newPhone.slice(1));
    const first = await s.lastCode(newPhone);
    const resent = await sb.auth.resend({ type: "phone_change", phone: newPhone });
    expect(resent.error).toBeNull();
    expect(resent.data.messageId).toBeTruthy();
    const second = await s.lastCode(newPhone);
    const stale = first === second ? null : await sb.auth.verifyOtp({ phone: newPhone, token: first, type: "phone_change" });
    if (stale) expect(stale.error?.code).toBe("otp_expired");
    const ok = await sb.auth.verifyOtp({ phone: newPhone, token: second, type: "phone_change" });
    expect(ok.error).toBeNull();
    expect(ok.data.user?.phone).toBe(newPhone.slice(1));
    expect(ok.data.user?.app_metadata.providers).toEqual(["email", "phone"]);
    expect((await s.client().auth.signInWithPassword({ phone: newPhone, password: "secret123" })).error).toBeNull();
  });

  test("refreshSession rotates the refresh token and fires TOKEN_REFRESHED", async () => {
    const sb = s.client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { data } = await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const before = data.session;
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(before?.refresh_token);
    expect(refreshed.data.session?.access_token).not.toBe(before?.access_token);
    expect(refreshed.data.session?.user.id).toBe(before?.user.id);
    expect(events).toContain("TOKEN_REFRESHED");
    expect((await sb.auth.getUser()).error).toBeNull();
  });

  test("the automatic refresh (startAutoRefresh) renews a session that is about to expire", async () => {
    const sb = s.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const session = data.session;
    if (!session) throw new Error("no session");
    const refreshed = new Promise<string>((resolve) => {
      sb.auth.onAuthStateChange((event, next) => {
        if (event === "TOKEN_REFRESHED" && next) resolve(next.refresh_token);
      });
    });
    // An access token that expires in 20 s: the client's first tick refreshes it.
    const claims = (await sb.auth.getClaims()).data?.claims;
    const { token } = await s.app.deps.auth.tokens.issue(
      {
        userId: session.user.id,
        email: session.user.email ?? null,
        phone: null,
        appMetadata: session.user.app_metadata,
        userMetadata: session.user.user_metadata,
        isAnonymous: false,
        sessionId: claims?.session_id as string,
        aal: "aal1",
        amr: [],
      },
      Date.now() - (3600 - 20) * 1000,
    );
    await sb.auth.setSession({ access_token: token, refresh_token: session.refresh_token });
    await sb.auth.startAutoRefresh();
    const next = await Promise.race([
      refreshed,
      new Promise<string>((_, reject) => setTimeout(() => reject(new Error("no refresh")), 8000)),
    ]);
    await sb.auth.stopAutoRefresh();
    expect(next).not.toBe(session.refresh_token);
  });

  test("signOut scopes: others, local and global end the sessions they say", async () => {
    const email = uniqueEmail();
    await s.client().auth.signUp({ email, password: "secret123" });
    const [a, b, c] = [s.client(), s.client(), s.client()];
    for (const sb of [a, b, c]) expect((await sb.auth.signInWithPassword({ email, password: "secret123" })).error).toBeNull();
    const events: AuthChangeEvent[] = [];
    a.auth.onAuthStateChange((event) => {
      events.push(event);
    });

    expect((await a.auth.signOut({ scope: "others" })).error).toBeNull();
    expect((await a.auth.getUser()).error).toBeNull();
    expect((await b.auth.getUser()).error?.name).toBe("AuthSessionMissingError");

    const d = s.client();
    await d.auth.signInWithPassword({ email, password: "secret123" });
    expect((await a.auth.signOut({ scope: "local" })).error).toBeNull();
    expect(events).toContain("SIGNED_OUT");
    expect((await a.auth.getSession()).data.session).toBeNull();
    expect((await d.auth.getUser()).error).toBeNull();

    expect((await d.auth.signOut({ scope: "global" })).error).toBeNull();
    expect((await c.auth.getUser()).error?.name).toBe("AuthSessionMissingError");
    const logout = await fetch(`${s.baseUrl}/auth/v1/logout?scope=global`, {
      method: "POST",
      headers: { apikey: s.anonKey, authorization: `Bearer ${(await c.auth.getSession()).data.session?.access_token}` },
    });
    expect(logout.status).toBe(403);
  });

  test("logout answers 204 with no body", async () => {
    const { data } = await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const res = await fetch(`${s.baseUrl}/auth/v1/logout?scope=local`, {
      method: "POST",
      headers: { apikey: s.anonKey, authorization: `Bearer ${data.session?.access_token}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});

describe("one-time codes", () => {
  test.each(["sms", "whatsapp"] as const)(
    "signInWithOtp(phone, %s) + verifyOtp creates the user and signs in",
    async (channel) => {
      const phone = uniquePhone();
      const sb = s.client();
      const sent = await sb.auth.signInWithOtp({ phone, options: { channel, data: { name: "Omar" } } });
      expect(sent.error).toBeNull();
      expect(sent.data.messageId).toBeTruthy();
      const message = await s.lastMessage(phone);
      expect(message?.channel).toBe(channel);
      const verified = await sb.auth.verifyOtp({ phone, token: await s.lastCode(phone), type: "sms" });
      expect(verified.error).toBeNull();
      expect(verified.data.user).toMatchObject({ phone: phone.slice(1), user_metadata: { name: "Omar" } });
      expect(verified.data.user?.phone_confirmed_at).toBeTruthy();
      expect((await sb.auth.getSession()).data.session?.user.id).toBe(verified.data.user?.id);
    },
  );

  test("signInWithOtp with shouldCreateUser false refuses an unknown phone; a code works once", async () => {
    const phone = uniquePhone();
    const refused = await s.client().auth.signInWithOtp({ phone, options: { shouldCreateUser: false } });
    expect(refused.error).toMatchObject({ status: 422, code: "otp_disabled" });
    await s.client().auth.signUp({ phone, password: "secret123" });
    expect((await s.client().auth.signInWithOtp({ phone, options: { shouldCreateUser: false } })).error).toBeNull();
    const code = await s.lastCode(phone);
    expect((await s.client().auth.verifyOtp({ phone, token: code, type: "sms" })).error).toBeNull();
    const again = await s.client().auth.verifyOtp({ phone, token: code, type: "sms" });
    expect(again.error).toMatchObject({ status: 403, code: "otp_expired", message: "Token has expired or is invalid" });
  });

  test("resend type sms sends a new code to an unconfirmed phone", async () => {
    const phone = uniquePhone();
    await s.client().auth.signInWithOtp({ phone });
    const resent = await s.client().auth.resend({ type: "sms", phone });
    expect(resent.error).toBeNull();
    expect(resent.data.messageId).toBeTruthy();
    expect((await s.client().auth.verifyOtp({ phone, token: await s.lastCode(phone), type: "sms" })).error).toBeNull();
    const bad = await s.client().auth.resend({ type: "sms" } as never);
    expect(bad.error).toBeTruthy();
  });

  test("resetPasswordForEmail (/recover) + verifyOtp type recovery fires PASSWORD_RECOVERY", async () => {
    const email = uniqueEmail();
    await s.client().auth.signUp({ email, password: "secret123" });
    const sb = s.client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    expect((await sb.auth.resetPasswordForEmail(email)).error).toBeNull();
    const verified = await sb.auth.verifyOtp({ email, token: await s.lastCode(email), type: "recovery" });
    expect(verified.error).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toContain("PASSWORD_RECOVERY");
    expect((await sb.auth.updateUser({ password: "recovered-1" })).error).toBeNull();
    expect((await s.client().auth.signInWithPassword({ email, password: "recovered-1" })).error).toBeNull();
  });

  test("recover does not reveal whether an address exists", async () => {
    const unknown = uniqueEmail();
    const res = await fetch(`${s.baseUrl}/auth/v1/recover`, {
      method: "POST",
      headers: { apikey: s.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: unknown }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect(await s.lastMessage(unknown)).toBeUndefined();
  });

  test("reauthenticate sends a nonce; updateUser accepts it with the new password", async () => {
    const sb = s.client();
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123" });
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const nonce = await s.lastCode(email);
    expect((await sb.auth.updateUser({ password: "after-nonce", nonce })).error).toBeNull();
    const reused = await sb.auth.updateUser({ password: "after-nonce-2", nonce });
    expect(reused.error?.code).toBe("otp_expired");
  });

  test("exchangeCodeForSession: PKCE flow through the recovery link's ?code=", async () => {
    const email = uniqueEmail();
    await s.client().auth.signUp({ email, password: "secret123" });
    const sb = s.client({ flowType: "pkce" });
    expect((await sb.auth.resetPasswordForEmail(email, { redirectTo: `${s.baseUrl}/reset` })).error).toBeNull();
    const link = /(http\S+\/auth\/v1\/verify\S+)/.exec((await s.lastMessage(email))?.body ?? "")?.[1];
    expect(link).toBeTruthy();
    const res = await fetch(link as string, { redirect: "manual" });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.pathname).toBe("/reset");
    const code = location.searchParams.get("code");
    expect(code).toBeTruthy();
    const exchanged = await sb.auth.exchangeCodeForSession(code as string);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user?.email).toBe(email);
    expect(exchanged.data.session?.access_token).toBeTruthy();
    // The code is single use, and a wrong verifier never works.
    const replay = await s.client({ flowType: "pkce" }).auth.exchangeCodeForSession(code as string);
    expect(replay.error).toBeTruthy();
  });

  test("magic-link style e-mail OTP also works with verifyOtp type email", async () => {
    const email = uniqueEmail();
    const sb = s.client();
    expect((await sb.auth.signInWithOtp({ email })).error).toBeNull();
    const verified = await sb.auth.verifyOtp({ email, token: await s.lastCode(email), type: "email" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(email);
  });
});

describe("MFA (TOTP)", () => {
  test("enroll, challenge, verify (aal1 → aal2), listFactors, AAL, unenroll", async () => {
    const sb = s.client();
    const email = uniqueEmail();
    await sb.auth.signUp({ email, password: "secret123" });
    const enrolled = await sb.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone app" });
    expect(enrolled.error).toBeNull();
    const factor = enrolled.data;
    if (factor?.type !== "totp") throw new Error("no totp factor");
    expect(factor.totp.qr_code.startsWith("data:image/svg+xml;utf-8,<svg")).toBe(true);
    expect(factor.totp.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(factor.totp.secret).toMatch(/^[A-Z2-7]+=*$/);

    const before = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: "aal1", nextLevel: "aal1" });

    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect(challenge.error).toBeNull();
    const wrong = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data?.id as string, code: "000000" });
    expect(wrong.error).toMatchObject({ status: 422, code: "mfa_verification_failed" });
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const verified = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data?.id as string,
      code: totpCode(factor.totp.secret),
    });
    expect(verified.error).toBeNull();
    expect(events).toContain("MFA_CHALLENGE_VERIFIED");
    const after = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(after.data).toMatchObject({ currentLevel: "aal2", nextLevel: "aal2" });
    expect(after.data?.currentAuthenticationMethods).toContainEqual(expect.objectContaining({ method: "totp" }));
    const factors = await sb.auth.mfa.listFactors();
    expect(factors.data?.totp.map((f) => f.id)).toEqual([factor.id]);

    // A fresh password sign-in is aal1 with aal2 to reach.
    const other = s.client();
    await other.auth.signInWithPassword({ email, password: "secret123" });
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: "aal1",
      nextLevel: "aal2",
    });
    const denied = await other.auth.mfa.unenroll({ factorId: factor.id });
    expect(denied.error).toMatchObject({ status: 422, code: "insufficient_aal" });

    const removed = await sb.auth.mfa.unenroll({ factorId: factor.id });
    expect(removed.error).toBeNull();
    expect((await sb.auth.mfa.listFactors()).data?.all).toEqual([]);
  });
});

describe("providers that are not enabled answer as Supabase does", () => {
  test("id_token, SSO, linking and unlinking identities, /authorize", async () => {
    const sb = s.client();
    await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const idToken = await sb.auth.signInWithIdToken({ provider: "google", token: "header.payload.sig" });
    expect(idToken.error).toMatchObject({
      status: 400,
      code: "provider_disabled",
      message: 'Provider (issuer "https://accounts.google.com") is not enabled',
    });
    const sso = await sb.auth.signInWithSSO({ domain: "example.com" });
    expect(sso.error).toMatchObject({ status: 404, code: "saml_provider_disabled", message: "SAML 2.0 is disabled" });
    const link = await sb.auth.linkIdentity({ provider: "google", options: { skipBrowserRedirect: true } });
    expect(link.error).toMatchObject({ status: 404, code: "manual_linking_disabled", message: "Manual linking is disabled" });
    const identity = (await sb.auth.getUserIdentities()).data?.identities[0];
    if (!identity) throw new Error("no identity");
    const unlink = await sb.auth.unlinkIdentity(identity);
    expect(unlink.error).toMatchObject({ status: 404, code: "manual_linking_disabled" });
    const authorize = await fetch(`${s.baseUrl}/auth/v1/authorize?provider=google`, {
      headers: { "x-supabase-api-version": "2024-01-01" },
    });
    expect(authorize.status).toBe(400);
    expect(await authorize.json()).toEqual({
      code: "validation_failed",
      message: "Unsupported provider: provider is not enabled",
    });
  });
});

describe("admin API (service-role key)", () => {
  test("list, create, get, update, delete users; generateLink", async () => {
    const admin = s.adminClient().auth.admin;
    const email = uniqueEmail();
    const created = await admin.createUser({
      email,
      password: "secret123",
      email_confirm: true,
      user_metadata: { name: "Sara" },
    });
    expect(created.error).toBeNull();
    const id = created.data.user?.id as string;
    expect(created.data.user).toMatchObject({ email, user_metadata: { name: "Sara" } });

    const listed = await admin.listUsers({ page: 1, perPage: 2 });
    expect(listed.error).toBeNull();
    expect(listed.data.users.length).toBeLessThanOrEqual(2);
    expect((listed.data as { total?: number }).total).toBeGreaterThan(2);

    expect((await admin.getUserById(id)).data.user?.email).toBe(email);
    const updated = await admin.updateUserById(id, { app_metadata: { role: "admin" }, user_metadata: { city: "Amman" } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.app_metadata).toMatchObject({ role: "admin", provider: "email" });
    expect(updated.data.user?.user_metadata).toEqual({ name: "Sara", city: "Amman" });

    const recovery = await admin.generateLink({ type: "recovery", email });
    expect(recovery.error).toBeNull();
    expect(recovery.data.properties?.verification_type).toBe("recovery");
    expect(recovery.data.properties?.action_link).toContain("/auth/v1/verify?token=");
    const viaOtp = await s
      .client()
      .auth.verifyOtp({ email, token: recovery.data.properties?.email_otp as string, type: "recovery" });
    expect(viaOtp.error).toBeNull();
    const magic = await admin.generateLink({ type: "magiclink", email: uniqueEmail() });
    expect(magic.error).toBeNull();
    const viaHash = await s
      .client()
      .auth.verifyOtp({ token_hash: magic.data.properties?.hashed_token as string, type: "magiclink" });
    expect(viaHash.error).toBeNull();

    expect((await admin.deleteUser(id)).error).toBeNull();
    expect((await admin.getUserById(id)).error).toMatchObject({ status: 404, code: "user_not_found" });
  });

  test("a person's token is not an admin key; the anon key is refused too", async () => {
    const sb = s.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const res = await fetch(`${s.baseUrl}/auth/v1/admin/users`, {
      headers: { apikey: s.anonKey, authorization: `Bearer ${data.session?.access_token}` },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error_code: "not_admin", msg: "User not allowed" });
    const anon = await fetch(`${s.baseUrl}/auth/v1/admin/users`, {
      headers: { apikey: s.anonKey, authorization: `Bearer ${s.anonKey}` },
    });
    expect(anon.status).toBe(403);
  });
});

describe("the HTTP surface", () => {
  test("GET /settings and /health answer like Supabase Auth", async () => {
    const settings = (await (await fetch(`${s.baseUrl}/auth/v1/settings`, { headers: { apikey: s.anonKey } })).json()) as Record<
      string,
      unknown
    >;
    expect(settings).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: true,
      saml_enabled: false,
    });
    expect(settings.external).toMatchObject({ email: true, phone: true, google: false });
    const health = await (await fetch(`${s.baseUrl}/auth/v1/health`)).json();
    expect(health).toMatchObject({ name: "GoTrue" });
  });

  test("errors: legacy shape without the version header; {code, message} and the echoed header with it", async () => {
    const legacy = await fetch(`${s.baseUrl}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { apikey: s.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@users.hikaya.app", password: "whatever1", extra: "ignored" }),
    });
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toEqual({ code: 400, error_code: "invalid_credentials", msg: "Invalid login credentials" });
    const versioned = await fetch(`${s.baseUrl}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: {
        apikey: s.anonKey,
        "content-type": "application/json",
        "x-supabase-api-version": "2024-01-01",
        origin: "http://localhost:5173",
      },
      body: JSON.stringify({ email: "nobody@users.hikaya.app", password: "whatever1" }),
    });
    expect(versioned.headers.get("x-supabase-api-version")).toBe("2024-01-01");
    expect(versioned.headers.get("access-control-expose-headers")).toMatch(/X-Supabase-Api-Version/i);
    expect(await versioned.json()).toEqual({ code: "invalid_credentials", message: "Invalid login credentials" });
  });

  test("the apikey header is required, and must be one of our role keys", async () => {
    const none = await fetch(`${s.baseUrl}/auth/v1/user`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { message: string }).message).toBe("No API key found in request");
    const wrong = await fetch(`${s.baseUrl}/auth/v1/user`, { headers: { apikey: "not-a-key" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { message: string }).message).toBe("Invalid API key");
    const preflight = await fetch(`${s.baseUrl}/auth/v1/token?grant_type=password`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey,content-type,x-supabase-api-version",
      },
    });
    expect(preflight.status).toBe(204);
  });
});
