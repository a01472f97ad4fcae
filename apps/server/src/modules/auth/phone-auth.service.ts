import type { AccountUser, CreateAccountUserRequest, Language } from "@hikaya/contracts";
import { AppError, forbidden, notFound } from "../../errors.ts";
import { AuthCore, type AuthCoreDeps, type Caller, RESET_TOKEN_TTL_MS, type RequestMeta } from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import type { CodesService } from "./codes.service.ts";
import { phoneWithCountry, resolveCountry } from "./phone.ts";
import { randomToken } from "./secrets.ts";
import type { SessionsService } from "./sessions.service.ts";
import { authText } from "./texts.ts";
import type { UserAccountsService } from "./user-accounts.service.ts";

/** What a correct reset code buys (`verifyOtpResponseSchema`). */
export interface VerifiedReset {
  token: string;
  mfa?: { factorId: string; accessToken: string; refreshToken: string; expiresAt: number };
}

/**
 * The spec's phone-number account calls (/api/sign-up, send-otp, verify-otp, reset-password,
 * change-password, POST /api/users), on the same users, sessions and tokens as /auth/v1.
 */
export class PhoneAuthService extends AuthCore {
  readonly #userAccounts: UserAccountsService;
  readonly #codes: CodesService;
  readonly #sessions: SessionsService;

  constructor(deps: AuthCoreDeps, parts: { userAccounts: UserAccountsService; codes: CodesService; sessions: SessionsService }) {
    super(deps);
    this.#userAccounts = parts.userAccounts;
    this.#codes = parts.codes;
    this.#sessions = parts.sessions;
  }

  #phone(country: string, phoneNumber: string): { e164: string; dialCode: string; national: string } {
    const resolved = resolveCountry(country);
    const e164 = phoneWithCountry(country, phoneNumber);
    if (!resolved || !e164) throw new AppError("invalid_phone", "Invalid phone number format (E.164 required)");
    const dialCode = e164.startsWith(resolved.dialCode) ? resolved.dialCode : resolved.dialCode;
    return { e164, dialCode, national: e164.slice(dialCode.length) };
  }

  /**
   * A phone number written with a profile, held to sign-up's rule: valid for the country given with it, else the
   * country the profile has (Arabic-Indic digits read as digits). Stored as sign-up stores it: national and dial code.
   */
  async #profilePhone(userId: string, country: string | undefined, phoneNumber: string) {
    const known = country ?? (await this.repo.findProfile(userId))?.country_code ?? null;
    if (!known)
      throw new AppError("invalid_phone", "phoneNumber: give countryCode with it", {
        field: "phoneNumber",
        reason: "invalid_phone",
      });
    try {
      return this.#phone(known, phoneNumber);
    } catch {
      throw new AppError("invalid_phone", "phoneNumber: not a valid number for the country", {
        field: "phoneNumber",
        reason: "invalid_phone",
      });
    }
  }

  async signUp(
    input: { country: string; phoneNumber: string; password: string; agreeToReminder: boolean; language?: Language },
    meta: RequestMeta,
  ) {
    const { e164, dialCode, national } = this.#phone(input.country, input.phoneNumber);
    const session = await this.#userAccounts.signUp({ phone: e164, password: input.password, data: {} }, meta);
    const now = new Date().toISOString();
    const userId = session.user.id;
    await this.repo.upsertProfile(
      {
        user_id: userId,
        name: null,
        phone_number: national,
        country_code: dialCode,
        city: null,
        gender: null,
        age_group: null,
        from_landing_page: 0,
        agree_to_reminder: input.agreeToReminder ? 1 : 0,
        agree_to_reminder_at: now,
        whatsapp_opt_in: null,
        whatsapp_opt_in_at: null,
        language: input.language ?? meta.language ?? null,
        created_at: now,
        updated_at: now,
      },
      {
        phone_number: national,
        country_code: dialCode,
        agree_to_reminder: input.agreeToReminder ? 1 : 0,
        agree_to_reminder_at: now,
        ...(input.language ? { language: input.language } : {}),
        updated_at: now,
      },
    );
    return {
      token: session.access_token,
      refreshToken: session.refresh_token,
      expiresAt: session.expires_at,
      user: await this.accountUser(userId),
    };
  }

  /** Sends a code to a registered phone; an unknown phone gets the same answer (a stable decoy id) and no message. */
  async sendOtp(input: { country: string; phoneNumber: string }, meta: RequestMeta): Promise<{ user: string }> {
    const { e164 } = this.#phone(input.country, input.phoneNumber);
    await this.limiter.hit("otpSendPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", e164);
    const user = await this.repo.findUserByPhone(e164);
    if (!user) {
      await this.audit(null, "api_recovery_requested", meta, { known: false });
      return { user: this.decoyUserId(e164) };
    }
    const { code } = await this.#codes.issueCode("api_recovery", user.id, user.id);
    const language = await this.languageOf(user.id, meta);
    await this.send("sms", e164, authText("resetCode", language, { code }), "recovery");
    await this.audit(user.id, "api_recovery_requested", meta, { known: true });
    return { user: user.id };
  }

  /**
   * A reset code an admin sends from the console: the same code, message and screen as the person's own "forgot
   * password" (the link opens the app's code screen for this account), through the message provider.
   */
  async sendResetCodeTo(userId: string, meta: RequestMeta & { origin: string }): Promise<void> {
    const user = await this.repo.findUserById(userId);
    if (!user) throw notFound("User not found");
    if (!user.phone) throw new AppError("no_phone_number", "This person has no phone number to send a code to");
    await this.limiter.hit("otpSendPerRecipient", user.phone);
    const { code } = await this.#codes.issueCode("api_recovery", user.id, user.id);
    const link = `${meta.origin}/send-otp/${user.id}`;
    const language = await this.languageOf(user.id, meta);
    await this.send("sms", user.phone, authText("resetLink", language, { code, link }), "recovery");
    await this.audit(user.id, "api_recovery_requested", meta, { known: true, by: "admin" });
  }

  /**
   * A correct code buys a short-lived, single-use reset token. With a verified authenticator factor the SMS code
   * alone sets no password (GoTrue refuses recovery at aal1 the same way): it also buys an aal1 session, which must
   * pass the factor before resetPassword accepts the token.
   */
  async verifyOtp(input: { otp: string; user: string }, meta: RequestMeta): Promise<VerifiedReset> {
    await this.limiter.hit("verifyPerIp", meta.ip);
    await this.limiter.hit("verifyPerAccount", input.user);
    try {
      await this.#codes.consumeCode(["api_recovery"], input.user, input.otp);
    } catch (error) {
      if (error instanceof AuthError && error.appCode === "too_many_attempts") throw error.toAppError();
      if (error instanceof AuthError && error.errorCode === "otp_expired")
        throw new AppError("invalid_otp", "Invalid or expired code");
      throw error;
    }
    const secret = randomToken();
    await this.#codes.issueCode("api_reset", input.user, input.user, secret, RESET_TOKEN_TTL_MS);
    await this.audit(input.user, "api_otp_verified", meta);
    const token = `${input.user}.${secret}`;
    const factor = (await this.repo.factorsOf([input.user])).find((f) => f.status === "verified");
    const user = factor ? await this.repo.findUserById(input.user) : undefined;
    if (!factor || !user) return { token };
    const session = await this.#sessions.startSession(user, "recovery", meta);
    return {
      token,
      mfa: {
        factorId: factor.id,
        accessToken: session.access_token,
        refreshToken: session.refresh_token,
        expiresAt: session.expires_at,
      },
    };
  }

  /**
   * Sets the password a reset token was issued for. `session` is the request's own (its access token), if it sent
   * one: an account with a verified factor needs it to be that account's session at aal2, read live. Refused with
   * `mfa_required` before the token is spent, so the same token works once the factor is passed.
   */
  async resetPassword(
    input: { password: string; confirmPassword: string; token: string },
    meta: RequestMeta,
    session: { userId: string; sessionId: string } | null,
  ) {
    if (input.password !== input.confirmPassword)
      throw new AppError("passwords_do_not_match", "Confirm password does not match New password");
    const password = this.checkPassword(input.password);
    const row = await this.#findResetToken(input.token, async (userId) => {
      const live = session?.userId === userId ? await this.repo.findSession(session.sessionId) : undefined;
      if (await this.lacksSecondFactor(userId, live?.user_id === userId ? live : { aal: "aal1" }))
        throw new AppError("mfa_required", "Verify with your authenticator app, then set the new password", {
          reason: "insufficient_aal",
        });
    });
    const user = row.user_id ? await this.repo.findUserById(row.user_id) : undefined;
    if (!user) throw new AppError("otp_expired", "This reset link is invalid or has expired");
    await this.repo.updateUser(user.id, {
      encrypted_password: await this.hashPassword(password),
      updated_at: new Date().toISOString(),
    });
    // Whoever held the old password is signed out everywhere.
    await this.repo.deleteSessionsOf(user.id);
    await this.audit(user.id, "user_recovery_password_reset", meta);
    return { message: "Password reset successfully" };
  }

  /**
   * Reset tokens read `<user id>.<secret>`: the id finds the stored hash, the secret must match it. `beforeSpending`
   * runs once the secret matched, before the token is spent: what it refuses leaves the token as it was.
   */
  async #findResetToken(token: string, beforeSpending: (userId: string) => Promise<void>) {
    const [userId, secret] = token.split(".", 2);
    if (!userId || !secret) throw new AppError("otp_expired", "This reset link is invalid or has expired");
    try {
      return await this.#codes.consumeCode(["api_reset"], userId, secret, () => beforeSpending(userId));
    } catch (error) {
      if (error instanceof AuthError) throw new AppError("otp_expired", "This reset link is invalid or has expired");
      throw error;
    }
  }

  async changePassword(caller: Caller, input: { oldPassword: string; newPassword: string }, meta: RequestMeta) {
    // As PUT /auth/v1/user: with a verified factor, only a session that passed it may change the password.
    if (await this.lacksSecondFactor(caller.user.id, caller.session)) throw authErrors.aal2ToChangePassword();
    if (!(await this.hasher.verify(input.oldPassword, caller.user.encrypted_password))) {
      await this.audit(caller.user.id, "change_password_failed", meta);
      throw new AppError("incorrect_password", "Current password is incorrect");
    }
    const password = this.checkPassword(input.newPassword);
    await this.repo.updateUser(caller.user.id, {
      encrypted_password: await this.hashPassword(password),
      updated_at: new Date().toISOString(),
    });
    await this.repo.deleteSessionsOf(caller.user.id, caller.session.id);
    await this.audit(caller.user.id, "user_updated_password", meta);
    return { message: "Password change successfully" };
  }

  /** POST /api/users: a person's details, for their own id (admins: anyone's). */
  async upsertUser(caller: { userId: string; isAdmin: boolean }, input: CreateAccountUserRequest): Promise<AccountUser> {
    if (input.id !== caller.userId && !caller.isAdmin) throw forbidden("You can only change your own details");
    const user = await this.repo.findUserById(input.id);
    if (!user) throw notFound("User not found");
    const now = new Date().toISOString();
    const resolved = input.countryCode ? resolveCountry(input.countryCode) : null;
    if (input.countryCode && !resolved) throw new AppError("validation_failed", "countryCode: unknown country");
    const phone = input.phoneNumber ? await this.#profilePhone(input.id, resolved?.dialCode, input.phoneNumber) : null;
    const values = {
      ...(input.name !== undefined ? { name: input.name ?? null } : {}),
      ...(input.phoneNumber !== undefined ? { phone_number: phone?.national ?? null } : {}),
      ...(phone ? { country_code: phone.dialCode } : resolved ? { country_code: resolved.dialCode } : {}),
      ...(input.fromLandingPage !== undefined ? { from_landing_page: input.fromLandingPage ? 1 : 0 } : {}),
      ...(input.agreeToReminder !== undefined
        ? { agree_to_reminder: input.agreeToReminder ? 1 : 0, agree_to_reminder_at: now }
        : {}),
      ...(input.language ? { language: input.language } : {}),
    };
    await this.repo.upsertProfile(
      {
        user_id: input.id,
        name: null,
        phone_number: null,
        country_code: null,
        city: null,
        gender: null,
        age_group: null,
        from_landing_page: 0,
        agree_to_reminder: 1,
        agree_to_reminder_at: null,
        whatsapp_opt_in: null,
        whatsapp_opt_in_at: null,
        language: null,
        created_at: now,
        updated_at: now,
        ...values,
      },
      { ...values, updated_at: now },
    );
    return this.accountUser(input.id);
  }

  async accountUser(userId: string): Promise<AccountUser> {
    const profile = await this.repo.findProfile(userId);
    return {
      id: userId,
      phoneNumber: profile?.phone_number ?? null,
      countryCode: profile?.country_code ?? null,
      name: profile?.name ?? null,
      fromLandingPage: profile?.from_landing_page === 1,
    };
  }
}
