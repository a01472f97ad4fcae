import type { SupabaseClient } from "@supabase/supabase-js";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Assurance levels as GoTrue enforces them: a session that passed only the password (aal1) of an account
// with a verified factor cannot add a factor, remove one, or change the e-mail, phone or password (here or through
// /api/change-password), and an admin's such session is not shown the service-role key.

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer();
});
afterAll(() => s.close());

let n = 0;
const uniqueEmail = () => `aal${++n}-${Date.now()}@users.hikaya.app`;
const totpCode = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

async function enrollAndVerify(sb: SupabaseClient, name: string, step = 0) {
  const enrolled = await sb.auth.mfa.enroll({ factorType: "totp", friendlyName: name });
  if (enrolled.error || enrolled.data.type !== "totp") throw enrolled.error ?? new Error("no totp factor");
  const challenge = await sb.auth.mfa.challenge({ factorId: enrolled.data.id });
  if (challenge.error) throw challenge.error;
  const verified = await sb.auth.mfa.verify({
    factorId: enrolled.data.id,
    challengeId: challenge.data.id,
    code: totpCode(enrolled.data.totp.secret, step),
  });
  if (verified.error) throw verified.error;
  return { id: enrolled.data.id, secret: enrolled.data.totp.secret };
}

/** An account whose owner has a verified TOTP factor, and a second client signed in with only the password. */
async function accountWithFactor() {
  const email = uniqueEmail();
  const owner = s.client();
  await owner.auth.signUp({ email, password: "secret123" });
  const factor = await enrollAndVerify(owner, "owner's phone");
  const thief = s.client();
  const signIn = await thief.auth.signInWithPassword({ email, password: "secret123" });
  expect(signIn.error).toBeNull();
  expect((await thief.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal1");
  return { email, owner, thief, factor };
}

describe("an aal1 session of an account with a verified factor", () => {
  test("cannot enroll another factor: 403 insufficient_aal", async () => {
    const { thief } = await accountWithFactor();
    const enrolled = await thief.auth.mfa.enroll({ factorType: "totp", friendlyName: "thief's phone" });
    expect(enrolled.error).toMatchObject({
      status: 403,
      code: "insufficient_aal",
      message: "AAL2 required to enroll a new factor",
    });
  });

  test("cannot unenroll the verified factor: 422 insufficient_aal; the factor stays", async () => {
    const { thief, owner, factor } = await accountWithFactor();
    const removed = await thief.auth.mfa.unenroll({ factorId: factor.id });
    expect(removed.error).toMatchObject({
      status: 422,
      code: "insufficient_aal",
      message: "AAL2 required to unenroll verified factor",
    });
    expect((await owner.auth.mfa.listFactors()).data?.totp.map((f) => f.id)).toEqual([factor.id]);
  });

  test("cannot change the password or the e-mail: 401 insufficient_aal; metadata may change", async () => {
    const { thief, email } = await accountWithFactor();
    const message = "AAL2 session is required to update email or password when MFA is enabled.";
    const password = await thief.auth.updateUser({ password: "stolen-pass1" });
    expect(password.error).toMatchObject({ status: 401, code: "insufficient_aal", message });
    const mail = await thief.auth.updateUser({ email: uniqueEmail() });
    expect(mail.error).toMatchObject({ status: 401, code: "insufficient_aal", message });
    const data = await thief.auth.updateUser({ data: { nickname: "x" } });
    expect(data.error).toBeNull();
    // The old password still signs in: nothing changed.
    const again = await s.client().auth.signInWithPassword({ email, password: "secret123" });
    expect(again.error).toBeNull();
  });

  test("cannot change the login phone: 401 insufficient_aal, and no code goes to the new number", async () => {
    const { thief } = await accountWithFactor();
    const phone = `96279${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
    const changed = await thief.auth.updateUser({ phone });
    expect(changed.error).toMatchObject({
      status: 401,
      code: "insufficient_aal",
      message: "AAL2 session is required to update phone when MFA is enabled.",
    });
    expect(await s.lastMessage(`+${phone}`)).toBeUndefined();
  });

  test("cannot change the login phone through /api/account/phone nor confirm a change there: 403, the phone stays", async () => {
    const { owner, thief } = await accountWithFactor();
    const post = async (sb: SupabaseClient, path: string, body: unknown) =>
      fetch(`${s.baseUrl}/api/account${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${(await sb.auth.getSession()).data.session?.access_token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
    const refusal = { code: "forbidden", message: "AAL2 session is required to change the phone when MFA is enabled." };
    const national = `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
    const phone = `+962${national.slice(1)}`;
    const asked = await post(thief, "/phone", { country: "JO", phoneNumber: national, channel: "sms" });
    expect(asked.status).toBe(403);
    expect(await asked.json()).toEqual(refusal);
    expect(await s.lastMessage(phone)).toBeUndefined();

    // The owner (aal2 since their enrolment) starts a change; the password alone cannot finish it, even with the code.
    expect((await post(owner, "/phone", { country: "JO", phoneNumber: national, channel: "sms" })).status).toBe(200);
    const code = /\d{6}/.exec((await s.lastMessage(phone))?.body ?? "")?.[0];
    expect(code).toMatch(/^\d{6}$/);
    const verified = await post(thief, "/phone/verify", { code });
    expect(verified.status).toBe(403);
    expect(await verified.json()).toEqual(refusal);
    expect((await owner.auth.getUser()).data.user?.phone ?? "").toBe("");
    // The same code still works for the session that passed the factor: the refusal spent nothing.
    const confirmed = await post(owner, "/phone/verify", { code });
    expect(confirmed.status).toBe(200);
    expect((await owner.auth.getUser()).data.user?.phone).toBe(phone.slice(1));
  });

  test("cannot change the password through /api/change-password: 403; the old password still signs in", async () => {
    const { thief, email } = await accountWithFactor();
    const token = (await thief.auth.getSession()).data.session?.access_token;
    const res = await fetch(`${s.baseUrl}/api/change-password`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ oldPassword: "secret123", newPassword: "stolen-pass1" }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      code: "forbidden",
      message: "AAL2 session is required to change the password when MFA is enabled.",
    });
    const again = await s.client().auth.signInWithPassword({ email, password: "secret123" });
    expect(again.error).toBeNull();
  });

  test("an admin's aal1 session is not shown the service-role key; the same admin at aal2 is", async () => {
    const email = uniqueEmail();
    const owner = s.client();
    const signedUp = await owner.auth.signUp({ email, password: "secret123" });
    const made = await s.adminClient().auth.admin.updateUserById(signedUp.data.user?.id as string, {
      app_metadata: { role: "admin" },
    });
    expect(made.error).toBeNull();
    // The role change ended the session: the admin signs in again to carry the role.
    expect((await owner.auth.signInWithPassword({ email, password: "secret123" })).error).toBeNull();
    await enrollAndVerify(owner, "admin's phone");
    const thief = s.client();
    expect((await thief.auth.signInWithPassword({ email, password: "secret123" })).error).toBeNull();
    const showKey = async (sb: SupabaseClient) =>
      fetch(`${s.baseUrl}/api/admin/service-role-key`, {
        method: "POST",
        headers: { authorization: `Bearer ${(await sb.auth.getSession()).data.session?.access_token}` },
      });
    const refused = await showKey(thief);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "mfa_required", details: { reason: "insufficient_aal" } });
    const shown = await showKey(owner);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toEqual({ serviceRoleKey: s.serviceRoleKey });
  });

  test("raw HTTP: the same answers in Supabase's legacy error shape", async () => {
    const { thief } = await accountWithFactor();
    const token = (await thief.auth.getSession()).data.session?.access_token;
    const res = await fetch(`${s.baseUrl}/auth/v1/user`, {
      method: "PUT",
      headers: { apikey: s.anonKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ password: "another-pass1" }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      code: 401,
      error_code: "insufficient_aal",
      msg: "AAL2 session is required to update email or password when MFA is enabled.",
    });
  });

  test("after passing the factor (aal2) the same session may change the password and add a factor", async () => {
    const { thief: session, factor } = await accountWithFactor();
    const challenge = await session.auth.mfa.challenge({ factorId: factor.id });
    // The owner's enrolment spent the current step; the next one is still inside the window.
    const verified = await session.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data?.id as string,
      code: totpCode(factor.secret, 1),
    });
    expect(verified.error).toBeNull();
    expect((await session.auth.updateUser({ password: "new-secret1" })).error).toBeNull();
    const token = (await session.auth.getSession()).data.session?.access_token;
    const viaApi = await fetch(`${s.baseUrl}/api/change-password`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ oldPassword: "new-secret1", newPassword: "newer-secret1" }),
    });
    expect(viaApi.status).toBe(200);
    const second = await session.auth.mfa.enroll({ factorType: "totp", friendlyName: "backup" });
    expect(second.error).toBeNull();
  });
});

describe("verification and unenrolment change the other sessions", () => {
  test("a successful verification ends the user's other aal1 sessions and drops unverified factors", async () => {
    const email = uniqueEmail();
    const first = s.client();
    await first.auth.signUp({ email, password: "secret123" });
    const second = s.client();
    await second.auth.signInWithPassword({ email, password: "secret123" });
    const stray = await first.auth.mfa.enroll({ factorType: "totp", friendlyName: "never verified" });
    expect(stray.error).toBeNull();

    const secondToken = (await second.auth.getSession()).data.session?.access_token;

    await enrollAndVerify(first, "phone app");

    const gone = await fetch(`${s.baseUrl}/auth/v1/user`, {
      headers: { apikey: s.anonKey, authorization: `Bearer ${secondToken}` },
    });
    expect(gone.status).toBe(403);
    expect(await gone.json()).toMatchObject({ error_code: "session_not_found" });
    expect((await first.auth.getUser()).error).toBeNull();
    const factors = (await first.auth.mfa.listFactors()).data?.all ?? [];
    expect(factors.map((f) => f.friendly_name)).toEqual(["phone app"]);
  });

  test("unenrolling a factor brings the sessions that used it back to aal1", async () => {
    const email = uniqueEmail();
    const sb = s.client();
    await sb.auth.signUp({ email, password: "secret123" });
    const factor = await enrollAndVerify(sb, "phone app");
    expect((await sb.auth.mfa.unenroll({ factorId: factor.id })).error).toBeNull();
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: "aal1",
      nextLevel: "aal1",
    });
  });
});
