import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// The admin API supabase-js offers (auth.admin): invitations, every generate_link type, and a person's factors.

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer();
});
afterAll(() => s.close());

let n = 0;
const uniqueEmail = () => `admin${++n}-${Date.now()}@users.hikaya.app`;
const totpCode = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();

async function raw(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.baseUrl}/auth/v1${path}`, {
    method: "POST",
    headers: {
      apikey: s.serviceRoleKey,
      authorization: `Bearer ${s.serviceRoleKey}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe("POST /invite", () => {
  test("creates the person unconfirmed and sends the invitation; its code signs them in and confirms them", async () => {
    const admin = s.adminClient().auth.admin;
    const email = uniqueEmail();
    const invited = await admin.inviteUserByEmail(email, { data: { name: "Huda" } });
    expect(invited.error).toBeNull();
    expect(invited.data.user).toMatchObject({ email, user_metadata: { name: "Huda" } });
    expect(invited.data.user?.email_confirmed_at).toBeUndefined();
    const message = await s.lastMessage(email);
    expect(message?.channel).toBe("email");
    expect(message?.body).toContain(`${s.baseUrl}/auth/v1/verify?token=`);
    expect(message?.body).toContain("type=invite");

    const signedIn = await s.client().auth.verifyOtp({ email, token: await s.lastCode(email), type: "invite" });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.email_confirmed_at).toBeTruthy();

    const again = await admin.inviteUserByEmail(email);
    expect(again.error).toMatchObject({
      status: 422,
      code: "email_exists",
      message: "A user with this email address has already been registered",
    });
  });

  test("the answer says when the invitation was sent (invited_at), as GoTrue's", async () => {
    const before = Date.now();
    const invited = await s.adminClient().auth.admin.inviteUserByEmail(uniqueEmail());
    expect(invited.error).toBeNull();
    const invitedAt = Date.parse(invited.data.user?.invited_at ?? "");
    expect(invitedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(invitedAt).toBeLessThanOrEqual(Date.now());
  });

  test("the invitation is written in the language the request asks for", async () => {
    const email = uniqueEmail();
    const res = await raw("/invite", { email }, { "accept-language": "ar" });
    expect(res.status).toBe(200);
    expect((await s.lastMessage(email))?.body).toMatch(/^أنت مدعوّ إلى حكاية/);
  });

  test("bad input and callers who are not admins get Supabase's errors", async () => {
    expect(await raw("/invite", { email: "xx:;x@x.x" })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: "Unable to validate email address: invalid format" },
    });
    const { data } = await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const asPerson = await raw(
      "/invite",
      { email: uniqueEmail() },
      { apikey: s.anonKey, authorization: `Bearer ${data.session?.access_token}` },
    );
    expect(asPerson).toMatchObject({ status: 403, body: { error_code: "not_admin" } });
  });
});

describe("generate_link", () => {
  test("the action link carries redirect_to: the one asked for (query or body), else the site's address", async () => {
    type Link = { action_link: string; redirect_to: string };
    const linkRedirect = (body: unknown) => new URL((body as Link).action_link).searchParams.get("redirect_to");
    const welcome = `${s.baseUrl}/welcome`;
    const inBody = await raw("/admin/generate_link", { type: "magiclink", email: uniqueEmail(), redirect_to: welcome });
    expect(inBody.status).toBe(200);
    expect(linkRedirect(inBody.body)).toBe(welcome);
    expect((inBody.body as Link).redirect_to).toBe(welcome);
    const inQuery = await raw(`/admin/generate_link?redirect_to=${encodeURIComponent(welcome)}`, {
      type: "magiclink",
      email: uniqueEmail(),
    });
    expect(linkRedirect(inQuery.body)).toBe(welcome);
    const none = await raw("/admin/generate_link", { type: "magiclink", email: uniqueEmail() });
    expect(linkRedirect(none.body)).toBe(s.baseUrl);
    expect((none.body as Link).redirect_to).toBe(s.baseUrl);
    // Another site is no redirect target: the link goes back to this one.
    const elsewhere = await raw("/admin/generate_link", {
      type: "magiclink",
      email: uniqueEmail(),
      redirect_to: "https://evil.example/x",
    });
    expect(linkRedirect(elsewhere.body)).toBe(s.baseUrl);
  });

  test("signup: a new unconfirmed person with the password; the link's hash confirms and signs in", async () => {
    const admin = s.adminClient().auth.admin;
    const email = uniqueEmail();
    const link = await admin.generateLink({ type: "signup", email, password: "secret123" });
    expect(link.error).toBeNull();
    expect(link.data.properties?.verification_type).toBe("signup");
    expect(link.data.properties?.action_link).toContain("type=signup");
    expect(link.data.user?.email_confirmed_at).toBeUndefined();
    const verified = await s
      .client()
      .auth.verifyOtp({ token_hash: link.data.properties?.hashed_token as string, type: "signup" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    const signIn = await s.client().auth.signInWithPassword({ email, password: "secret123" });
    expect(signIn.error).toBeNull();
    const noPassword = await raw("/admin/generate_link", { type: "signup", email: uniqueEmail() });
    expect(noPassword).toMatchObject({ status: 400, body: { msg: "Signup requires a valid password" } });
  });

  test("invite: following the action link signs the person in", async () => {
    const admin = s.adminClient().auth.admin;
    const email = uniqueEmail();
    const link = await admin.generateLink({ type: "invite", email });
    expect(link.error).toBeNull();
    const action = new URL(link.data.properties?.action_link as string);
    const followed = await fetch(`${s.baseUrl}${action.pathname}${action.search}`, { redirect: "manual" });
    expect(followed.status).toBe(303);
    expect(new URL(followed.headers.get("location") as string).hash).toContain("access_token=");
  });

  test("email_change_new and email_change_current: either link moves the person to the new address", async () => {
    const admin = s.adminClient().auth.admin;
    const email = uniqueEmail();
    const created = await admin.createUser({ email, password: "secret123", email_confirm: true });
    const id = created.data.user?.id as string;

    const newEmail = uniqueEmail();
    const viaNew = await admin.generateLink({ type: "email_change_new", email, newEmail });
    expect(viaNew.error).toBeNull();
    expect(viaNew.data.properties?.verification_type).toBe("email_change_new");
    expect(viaNew.data.properties?.action_link).toContain("type=email_change");
    expect((viaNew.data.user as unknown as { new_email: string }).new_email).toBe(newEmail);
    const changed = await s
      .client()
      .auth.verifyOtp({ token_hash: viaNew.data.properties?.hashed_token as string, type: "email_change" });
    expect(changed.error).toBeNull();
    expect((await admin.getUserById(id)).data.user?.email).toBe(newEmail);

    const third = uniqueEmail();
    const viaCurrent = await admin.generateLink({ type: "email_change_current", email: newEmail, newEmail: third });
    expect(viaCurrent.error).toBeNull();
    const byCode = await s
      .client()
      .auth.verifyOtp({ email: third, token: viaCurrent.data.properties?.email_otp as string, type: "email_change" });
    expect(byCode.error).toBeNull();
    const user = (await admin.getUserById(id)).data.user;
    expect(user?.email).toBe(third);
    expect(user?.identities?.find((i) => i.provider === "email")?.identity_data?.email).toBe(third);

    const someoneElse = uniqueEmail();
    await admin.createUser({ email: someoneElse, password: "secret123", email_confirm: true });
    const taken = await admin.generateLink({ type: "email_change_new", email: third, newEmail: someoneElse });
    expect(taken.error).toMatchObject({ status: 422, code: "email_exists" });
    const unknown = await admin.generateLink({ type: "email_change_new", email: uniqueEmail(), newEmail: uniqueEmail() });
    expect(unknown.error).toMatchObject({ status: 404, code: "user_not_found" });
  });

  test("an unknown type: 400 naming it", async () => {
    expect(await raw("/admin/generate_link", { type: "teleport", email: uniqueEmail() })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: "Invalid email action link type requested: teleport" },
    });
  });
});

describe("a person's factors", () => {
  test("admins list and delete them; the sessions that used the factor drop to aal1", async () => {
    const sb = s.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const userId = data.user?.id as string;
    const enrolled = await sb.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone app" });
    if (enrolled.data?.type !== "totp") throw new Error("no totp factor");
    const challenge = await sb.auth.mfa.challenge({ factorId: enrolled.data.id });
    await sb.auth.mfa.verify({
      factorId: enrolled.data.id,
      challengeId: challenge.data?.id as string,
      code: totpCode(enrolled.data.totp.secret),
    });

    const mfa = s.adminClient().auth.admin.mfa;
    const listed = await mfa.listFactors({ userId });
    expect(listed.error).toBeNull();
    expect(listed.data?.factors).toEqual([
      expect.objectContaining({ id: enrolled.data.id, factor_type: "totp", status: "verified", friendly_name: "phone app" }),
    ]);
    const deleted = await mfa.deleteFactor({ userId, id: enrolled.data.id });
    expect(deleted.error).toBeNull();
    // supabase-js hands back the answer wrapped once more ({ data: factor, error }); the answer is the factor.
    expect(deleted.data).toMatchObject({ data: { id: enrolled.data.id, factor_type: "totp" } });
    expect((await mfa.listFactors({ userId })).data?.factors).toEqual([]);
    await sb.auth.refreshSession();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal1");

    const again = await mfa.deleteFactor({ userId, id: enrolled.data.id });
    expect(again.error).toMatchObject({ status: 404, code: "mfa_factor_not_found" });
    const nobody = await mfa.listFactors({ userId: "00000000-0000-4000-8000-000000000000" });
    expect(nobody.error).toMatchObject({ status: 404, code: "user_not_found" });
  });

  test("a person's own token cannot read another person's factors", async () => {
    const { data } = await s.client().auth.signUp({ email: uniqueEmail(), password: "secret123" });
    const res = await fetch(`${s.baseUrl}/auth/v1/admin/users/${data.user?.id}/factors`, {
      headers: { apikey: s.anonKey, authorization: `Bearer ${data.session?.access_token}` },
    });
    expect(res.status).toBe(403);
  });
});
