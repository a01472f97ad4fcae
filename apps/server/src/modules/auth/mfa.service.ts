import { randomUUID } from "node:crypto";
import { AppError } from "../../errors.ts";
import type { SessionRow } from "./auth.repository.ts";
import { type Amr, AuthCore, type AuthCoreDeps, type Caller, MFA_CHALLENGE_TTL_MS, type RequestMeta } from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import { supabasePhone } from "./phone.ts";
import { randomToken, sha256Hex } from "./secrets.ts";
import type { SessionsService } from "./sessions.service.ts";

/**
 * TOTP factors with GoTrue's assurance levels: enrolling with a verified factor, unenrolling a verified one,
 * and (in accounts) changing the e-mail or password all need an aal2 session.
 */
export class MfaService extends AuthCore {
  readonly #sessions: SessionsService;

  constructor(deps: AuthCoreDeps, parts: { sessions: SessionsService }) {
    super(deps);
    this.#sessions = parts.sessions;
  }

  async enrollFactor(caller: Caller, input: { factor_type?: unknown; friendly_name?: unknown; issuer?: unknown }, host: string) {
    if (input.factor_type !== "totp") {
      if (input.factor_type === "phone" || input.factor_type === "webauthn")
        throw new AuthError(
          422,
          `mfa_${input.factor_type}_enroll_not_enabled`,
          `MFA enroll is disabled for ${input.factor_type === "phone" ? "Phone" : "WebAuthn"}`,
        );
      throw authErrors.validation("factor_type needs to be totp, phone or webauthn");
    }
    const friendlyName = typeof input.friendly_name === "string" && input.friendly_name !== "" ? input.friendly_name : null;
    const factors = await this.repo.factorsOf([caller.user.id]);
    // Otherwise a stolen password alone could add the thief's factor and reach aal2 with it.
    if (factors.some((f) => f.status === "verified") && caller.session.aal !== "aal2")
      throw new AuthError(403, "insufficient_aal", "AAL2 required to enroll a new factor");
    if (friendlyName && factors.some((f) => f.friendly_name === friendlyName))
      throw new AuthError(
        422,
        "mfa_factor_name_conflict",
        `A factor with the friendly name "${friendlyName}" for this user already exists`,
      );
    if (factors.length >= 10)
      throw new AuthError(
        422,
        "too_many_enrolled_mfa_factors",
        "Maximum number of verified factors reached, unenroll to continue",
      );
    const issuer = typeof input.issuer === "string" && input.issuer !== "" ? input.issuer : host;
    // The TOTP and QR libraries load when someone enrols or verifies a factor, not at start-up.
    const [OTPAuth, { renderSVG }] = await Promise.all([import("otpauth"), import("uqr")]);
    const secret = new OTPAuth.Secret({ size: 20 });
    const totp = new OTPAuth.TOTP({ issuer, label: caller.user.email ?? supabasePhone(caller.user.phone), secret });
    const uri = totp.toString();
    const now = new Date().toISOString();
    const id = randomUUID();
    await this.repo.insertFactor({
      id,
      user_id: caller.user.id,
      friendly_name: friendlyName,
      factor_type: "totp",
      status: "unverified",
      secret: secret.base32,
      phone: null,
      last_used_step: null,
      created_at: now,
      updated_at: now,
    });
    return {
      id,
      type: "totp" as const,
      friendly_name: friendlyName ?? "",
      totp: { qr_code: renderSVG(uri), secret: secret.base32, uri },
    };
  }

  async challengeFactor(caller: Caller, factorId: string, meta: RequestMeta) {
    const factor = await this.repo.findFactor(caller.user.id, factorId);
    if (!factor) throw authErrors.mfaFactorNotFound();
    const now = Date.now();
    const id = randomUUID();
    await this.repo.insertChallenge({ id, factor_id: factor.id, ip: meta.ip, created_at: new Date(now).toISOString() });
    return { id, type: factor.factor_type, expires_at: Math.floor((now + MFA_CHALLENGE_TTL_MS) / 1000) };
  }

  async verifyFactor(caller: Caller, factorId: string, input: { challenge_id?: unknown; code?: unknown }, meta: RequestMeta) {
    await this.limiter.hit("mfaVerifyPerUser", caller.user.id);
    const factor = await this.repo.findFactor(caller.user.id, factorId);
    if (!factor) throw authErrors.mfaFactorNotFound();
    if (typeof input.challenge_id !== "string" || typeof input.code !== "string")
      throw authErrors.validation("challenge_id and code are required");
    const challenge = await this.repo.findChallenge(input.challenge_id, factor.id);
    if (!challenge) throw new AuthError(404, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found");
    if (challenge.verified_at || Date.parse(challenge.created_at) + MFA_CHALLENGE_TTL_MS < Date.now())
      throw authErrors.mfaChallengeExpired();
    const step = await this.#stepOf(factor, input.code);
    if (step === null) {
      await this.audit(caller.user.id, "mfa_verification_failed", meta, { factor_id: factor.id });
      throw authErrors.mfaVerificationFailed();
    }
    if (!(await this.repo.markChallengeVerified(challenge.id, new Date().toISOString()))) throw authErrors.mfaChallengeExpired();
    const now = new Date();
    await this.repo.updateFactor(factor.id, { status: "verified", last_used_step: step, updated_at: now.toISOString() });
    const amr = (JSON.parse(caller.session.amr) as Amr).filter((a) => a.method !== "totp");
    amr.unshift({ method: "totp", timestamp: Math.floor(now.getTime() / 1000) });
    const session: SessionRow = {
      ...caller.session,
      aal: "aal2",
      amr: JSON.stringify(amr),
      factor_id: factor.id,
      updated_at: now.toISOString(),
    };
    await this.repo.updateSession(session.id, {
      aal: "aal2",
      amr: session.amr,
      factor_id: factor.id,
      updated_at: session.updated_at,
    });
    const refreshToken = randomToken();
    await this.repo.insertRefreshToken({
      token_hash: sha256Hex(refreshToken),
      session_id: session.id,
      user_id: caller.user.id,
      parent_id: null,
      created_at: now.toISOString(),
    });
    // As GoTrue: sessions that only passed the password are ended, and factors never verified are dropped.
    await this.repo.deleteAal1SessionsOf(caller.user.id);
    await this.repo.deleteUnverifiedFactorsOf(caller.user.id);
    await this.audit(caller.user.id, "mfa_verified", meta, { factor_id: factor.id });
    return this.#sessions.sessionResponse(caller.user, session, refreshToken);
  }

  async unenrollFactor(caller: Caller, factorId: string, meta: RequestMeta) {
    const factor = await this.repo.findFactor(caller.user.id, factorId);
    if (!factor) throw authErrors.mfaFactorNotFound();
    if (factor.status === "verified" && caller.session.aal !== "aal2") throw authErrors.insufficientAal();
    await this.repo.deleteFactor(factor.id);
    await this.repo.downgradeSessionsOfFactor(factor.id, new Date().toISOString());
    await this.audit(caller.user.id, "factor_deleted", meta, { factor_id: factor.id });
    return { id: factor.id };
  }

  /** The time step a TOTP code stands for, within one step of now; null for a wrong code or one already used. */
  async #stepOf(factor: { secret: string; last_used_step: number | null }, code: string): Promise<number | null> {
    const OTPAuth = await import("otpauth");
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.secret) });
    const delta = /^\d{6}$/.test(code) ? totp.validate({ token: code, window: 1 }) : null;
    const step = Math.floor(Date.now() / 30_000) + (delta ?? 0);
    return delta === null || (factor.last_used_step !== null && step <= factor.last_used_step) ? null : step;
  }

  /**
   * For what sets a password without a session (the console's reset link): an account with a verified factor must
   * give its current code with the request. 403 `mfa_required` without one, 400 `mfa_invalid_code` for a wrong or
   * used one (counted with the factor verifications' limit); a right one is spent.
   */
  async requireCodeIfFactor(userId: string, code: string | undefined, meta: RequestMeta): Promise<void> {
    const factors = (await this.repo.factorsOf([userId])).filter((f) => f.status === "verified");
    if (factors.length === 0) return;
    if (!code) throw new AppError("mfa_required", "Enter the code from your authenticator app", { reason: "insufficient_aal" });
    await this.limiter.hit("mfaVerifyPerUser", userId);
    for (const factor of factors) {
      const step = await this.#stepOf(factor, code);
      if (step === null) continue;
      await this.repo.updateFactor(factor.id, { last_used_step: step, updated_at: new Date().toISOString() });
      await this.audit(userId, "mfa_verified", meta, { factor_id: factor.id });
      return;
    }
    await this.audit(userId, "mfa_verification_failed", meta, {});
    throw new AppError("mfa_invalid_code", "The authenticator code is not correct");
  }

  /** Whether a signed-in session still has to pass the account's verified factor (guards.ts requireSecondFactor). */
  async needsSecondFactor(auth: { userId: string; sessionId: string }): Promise<boolean> {
    const session = await this.repo.findSession(auth.sessionId);
    return !session || (await this.lacksSecondFactor(auth.userId, session));
  }
}
