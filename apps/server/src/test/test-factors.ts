import * as OTPAuth from "otpauth";
import type { App } from "../deps.ts";

/**
 * TOTP factors for route tests, through /auth/v1 as the apps use them. A factor accepts each 30-second step once
 * (and the one before and after it), so a test passes one factor at most twice: at `step` 0, then at 1.
 */
export const totpCode = (secret: string, step = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + step * 30_000 });

const call = async (app: App, token: string, url: string, payload: object = {}) => {
  const res = await app.inject({
    method: "POST",
    url: `/auth/v1${url}`,
    headers: { apikey: app.deps.auth.keys.anonKey, authorization: `Bearer ${token}` },
    payload,
  });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

/** Challenges and verifies a factor with the session of `token`: the answer's access token is that session at aal2. */
export async function passFactor(app: App, token: string, factor: { id: string; secret: string }, step = 0) {
  const challenge = await call(app, token, `/factors/${factor.id}/challenge`);
  const session = await call(app, token, `/factors/${factor.id}/verify`, {
    challenge_id: challenge.id,
    code: totpCode(factor.secret, step),
  });
  return { accessToken: session.access_token as string, headers: { authorization: `Bearer ${session.access_token}` } };
}

/** Enrols a TOTP factor and verifies it (step 0): the account then has a verified factor, this session is at aal2. */
export async function enrollFactor(app: App, token: string, name = "phone app") {
  const enrolled = await call(app, token, "/factors", { factor_type: "totp", friendly_name: name });
  const factor = { id: enrolled.id as string, secret: enrolled.totp.secret as string };
  return { factor, ...(await passFactor(app, token, factor)) };
}

/** Another sign-in of the same person (a password alone): a new session at aal1. */
export async function signInAgain(app: App, userId: string) {
  const user = await app.deps.auth.service.findUser(userId);
  if (!user) throw new Error(`no user ${userId}`);
  const session = await app.deps.auth.service.sessions.startSession(user, "password", { ip: "127.0.0.1", userAgent: null });
  return { authorization: `Bearer ${session.access_token}` };
}
