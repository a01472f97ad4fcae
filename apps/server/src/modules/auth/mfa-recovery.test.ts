import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enrollFactor, passFactor, totpCode } from "../../test/test-factors.ts";
import { createTestUser } from "../../test/test-users.ts";
import { type AuthTestServer, startAuthTestServer } from "./auth-test-server.ts";

// Issue 37, one MFA rule: with a verified authenticator factor, a code sent by SMS or e-mail alone never sets a new
// password. GoTrue's recovery session stays aal1 until it passes the factor; /api's reset does the same.

let s: AuthTestServer;
beforeAll(async () => {
  s = await startAuthTestServer();
});
afterAll(() => s.close());

let n = 0;
const national = () => `79${String(1_000_000 + ((Date.now() + ++n * 7919) % 8_999_999)).slice(0, 7)}`;
const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  s.app.inject({ method: "POST", url, payload, headers });
const signIn = (phone: string, password: string) =>
  s.app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: s.anonKey },
    payload: { phone, password },
  });
const aalOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).aal;

/** A phone account (/api/sign-up), and the reset code sent to it, verified: what verify-otp answered. */
async function phoneAccount(withFactor: boolean) {
  const phoneNumber = national();
  const phone = `+962${phoneNumber}`;
  const signup = (
    await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: false })
  ).json();
  const factor = withFactor ? (await enrollFactor(s.app, signup.token)).factor : null;
  expect((await post("/api/send-otp", { country: "+962", phoneNumber })).statusCode).toBe(200);
  const verified = await post("/api/verify-otp", { otp: await s.lastCode(phone), user: signup.user.id });
  expect(verified.statusCode, verified.body).toBe(200);
  return { phone, factor, verified: verified.json() };
}

const reset = (token: string, password: string, headers: Record<string, string> = {}) =>
  post("/api/reset-password", { password, confirmPassword: password, token, country: "+962" }, headers);

describe("the SMS password reset (/api) of an account with a verified factor", () => {
  test("sets no password from the SMS code alone; after the authenticator code the same reset token does", async () => {
    const { phone, factor, verified } = await phoneAccount(true);
    // verify-otp hands over GoTrue's recovery session, at aal1, and the factor to pass.
    expect(verified.mfa).toMatchObject({ factorId: factor?.id, refreshToken: expect.any(String) });
    expect(aalOf(verified.mfa.accessToken)).toBe("aal1");

    const refusal = {
      code: "mfa_required",
      message: "Verify with your authenticator app, then set the new password",
      details: { reason: "insufficient_aal" },
    };
    const alone = await reset(verified.token, "stolen-pass1");
    expect(alone.statusCode).toBe(403);
    expect(alone.json()).toEqual(refusal);
    const atAal1 = await reset(verified.token, "stolen-pass1", { authorization: `Bearer ${verified.mfa.accessToken}` });
    expect(atAal1.statusCode).toBe(403);
    expect(atAal1.json()).toEqual(refusal);
    // Another account's session counts for nothing, whatever its level.
    const stranger = await createTestUser(s.app);
    expect((await reset(verified.token, "stolen-pass1", stranger.headers)).json()).toEqual(refusal);
    expect((await signIn(phone, "secret123")).statusCode).toBe(200);

    // The factor raises the recovery session to aal2 (step 1: enrolment spent step 0); the refusals spent no token.
    const passed = await passFactor(s.app, verified.mfa.accessToken, factor as { id: string; secret: string }, 1);
    expect(aalOf(passed.accessToken)).toBe("aal2");
    const done = await reset(verified.token, "new-secret1", passed.headers);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ message: "Password reset successfully" });
    expect((await signIn(phone, "new-secret1")).statusCode).toBe(200);
    expect((await signIn(phone, "secret123")).statusCode).toBe(400);
    // Every session ended with the reset, the recovery session too.
    const me = await s.app.inject({ url: "/auth/v1/user", headers: { apikey: s.anonKey, ...passed.headers } });
    expect(me.statusCode).toBe(403);
  });

  test("an account without a factor resets from the SMS code alone, and gets no recovery session", async () => {
    const { phone, verified } = await phoneAccount(false);
    expect(verified).toEqual({ token: expect.any(String) });
    expect((await reset(verified.token, "new-secret1")).statusCode).toBe(200);
    expect((await signIn(phone, "new-secret1")).statusCode).toBe(200);
  });
});

describe("GoTrue's recovery (/auth/v1) of an account with a verified factor", () => {
  test("the recovery session is aal1 and cannot set the password until it passes the factor", async () => {
    const email = `recover${++n}-${Date.now()}@users.hikaya.app`;
    const owner = s.client();
    const signedUp = await owner.auth.signUp({ email, password: "secret123" });
    const { factor } = await enrollFactor(s.app, signedUp.data.session?.access_token as string);

    const sb = s.client();
    expect((await sb.auth.resetPasswordForEmail(email)).error).toBeNull();
    const recovered = await sb.auth.verifyOtp({ email, token: await s.lastCode(email), type: "recovery" });
    expect(recovered.error).toBeNull();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: "aal1",
      nextLevel: "aal2",
    });
    const refused = await sb.auth.updateUser({ password: "stolen-pass1" });
    expect(refused.error).toMatchObject({ status: 401, code: "insufficient_aal" });
    expect((await s.client().auth.signInWithPassword({ email, password: "secret123" })).error).toBeNull();

    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    const passed = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data?.id as string,
      code: totpCode(factor.secret, 1),
    });
    expect(passed.error).toBeNull();
    expect((await sb.auth.updateUser({ password: "new-secret1" })).error).toBeNull();
    expect((await s.client().auth.signInWithPassword({ email, password: "new-secret1" })).error).toBeNull();
  });

  test("a recovery link from the admin API opens an aal1 session that cannot set the password either", async () => {
    const email = `link${++n}-${Date.now()}@users.hikaya.app`;
    const signedUp = await s.client().auth.signUp({ email, password: "secret123" });
    await enrollFactor(s.app, signedUp.data.session?.access_token as string);
    const link = await s.adminClient().auth.admin.generateLink({ type: "recovery", email });
    expect(link.error).toBeNull();
    const sb = s.client();
    const opened = await sb.auth.verifyOtp({ token_hash: link.data.properties?.hashed_token as string, type: "recovery" });
    expect(opened.error).toBeNull();
    const refused = await sb.auth.updateUser({ password: "stolen-pass1" });
    expect(refused.error).toMatchObject({ status: 401, code: "insufficient_aal" });
  });
});
