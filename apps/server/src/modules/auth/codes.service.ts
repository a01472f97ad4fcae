import { randomUUID } from "node:crypto";
import { isUniqueViolation } from "../../db/dialect.ts";
import type { OneTimeTokenRow, UserRow } from "./auth.repository.ts";
import {
  AuthCore,
  type AuthCoreDeps,
  type Caller,
  FLOW_TTL_MS,
  methodOf,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MS,
  type OtpPurpose,
  type RequestMeta,
  type SessionResponse,
  VERIFY_PURPOSES,
} from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import { emailTokenHash, pkceMatches, safeEqual, sha256Hex, sixDigitCode } from "./secrets.ts";
import type { SessionsService } from "./sessions.service.ts";
import { authText } from "./texts.ts";

/**
 * One-time codes and links: issuing and checking codes (hashed, single use, counted tries), magic and
 * recovery links with PKCE, /otp, /verify, /recover, /resend and /reauthenticate.
 */
export class CodesService extends AuthCore {
  readonly #sessions: SessionsService;

  constructor(deps: AuthCoreDeps, parts: { sessions: SessionsService }) {
    super(deps);
    this.#sessions = parts.sessions;
  }

  /** Stores a code (hashed) and returns it. `relatesTo` is the phone, e-mail or user id it was sent for. */
  async issueCode(purpose: OtpPurpose, relatesTo: string, userId: string | null, code = sixDigitCode(), ttlMs = OTP_TTL_MS) {
    const now = Date.now();
    const tokenHash = emailTokenHash(relatesTo, code);
    await this.repo.insertOneTimeToken({
      id: randomUUID(),
      user_id: userId,
      purpose,
      relates_to: relatesTo,
      token_hash: this.otpHash(tokenHash),
      attempts: 0,
      expires_at: new Date(now + ttlMs).toISOString(),
      used_at: null,
      created_at: new Date(now).toISOString(),
    });
    return { code, tokenHash };
  }

  /**
   * Checks a typed code: at most OTP_MAX_ATTEMPTS wrong tries, then it is spent; single use. `beforeSpending` runs
   * when the code matched, before it is spent: a refusal there leaves the code usable and counts no wrong try.
   */
  async consumeCode(
    purposes: OtpPurpose[],
    relatesTo: string,
    code: unknown,
    beforeSpending?: (row: OneTimeTokenRow) => Promise<void>,
  ): Promise<OneTimeTokenRow> {
    const now = new Date().toISOString();
    const row = await this.repo.latestActiveToken(relatesTo, purposes, now);
    if (!row) {
      // A code spent by wrong tries stays spent even for the right code; saying so (not "not correct") sends the
      // person to ask for a new one instead of retyping the code they rightly believe is correct.
      const last = await this.repo.latestToken(relatesTo, purposes);
      if (last && last.attempts >= OTP_MAX_ATTEMPTS && Date.parse(last.expires_at) > Date.parse(now)) throw authErrors.otpSpent();
      throw authErrors.otpInvalid();
    }
    if (typeof code !== "string") throw authErrors.otpInvalid();
    const expected = this.otpHash(emailTokenHash(relatesTo, code.trim()));
    if (!safeEqual(row.token_hash, expected)) {
      const spent = await this.repo.failTokenAttempt(row, OTP_MAX_ATTEMPTS, now);
      throw spent ? authErrors.otpSpent() : authErrors.otpInvalid();
    }
    await beforeSpending?.(row);
    if (!(await this.repo.consumeToken(row, now))) throw authErrors.otpInvalid();
    return row;
  }

  /** Checks a link's token_hash (256-bit, so no try counting is needed). */
  async consumeTokenHash(purposes: OtpPurpose[], tokenHash: unknown): Promise<OneTimeTokenRow> {
    if (typeof tokenHash !== "string" || !/^[0-9a-f]{64}$/i.test(tokenHash)) throw authErrors.otpInvalid();
    const now = new Date().toISOString();
    const row = await this.repo.activeTokenByHash(this.otpHash(tokenHash.toLowerCase()), purposes, now);
    if (!row || !(await this.repo.consumeToken(row, now))) throw authErrors.otpInvalid();
    return row;
  }

  async #startFlow(userId: string, relatesTo: string, method: string, challenge: unknown, challengeMethod: unknown) {
    if (typeof challenge !== "string" || challenge === "") return;
    const m = typeof challengeMethod === "string" ? challengeMethod.toLowerCase() : "";
    if (m !== "s256" && m !== "plain") throw authErrors.validation("Code challenge method must be one of: s256, plain");
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) throw authErrors.validation("Code challenge has invalid format");
    const now = Date.now();
    await this.repo.insertFlowState({
      id: randomUUID(),
      auth_code_hash: null,
      user_id: userId,
      code_challenge: challenge,
      code_challenge_method: m,
      authentication_method: method,
      relates_to: relatesTo,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + FLOW_TTL_MS).toISOString(),
      used_at: null,
    });
  }

  /** POST /otp. */
  async sendOtp(
    input: {
      email?: unknown;
      phone?: unknown;
      channel?: unknown;
      create_user?: unknown;
      data?: unknown;
      code_challenge?: unknown;
      code_challenge_method?: unknown;
    },
    meta: RequestMeta & { origin: string; redirectTo?: string },
  ): Promise<{ message_id?: string }> {
    const hasEmail = typeof input.email === "string" && input.email !== "";
    const hasPhone = typeof input.phone === "string" && input.phone !== "";
    if (!hasEmail && !hasPhone) throw authErrors.validation("You must provide either an email or phone number.");
    if (hasEmail && hasPhone) throw authErrors.validation("Only an email address or phone number should be provided");
    const channel = input.channel === undefined || input.channel === null || input.channel === "" ? "sms" : input.channel;
    if (channel !== "sms" && channel !== "whatsapp")
      throw authErrors.validation("Invalid channel, only sms and whatsapp are supported");
    const createUser = input.create_user !== false;
    const data =
      input.data && typeof input.data === "object" && !Array.isArray(input.data) ? (input.data as Record<string, unknown>) : {};
    const recipient = hasEmail ? this.normalizeEmail(input.email) : this.normalizePhone(input.phone);
    await this.limiter.hit("otpSendPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", recipient, hasEmail ? authErrors.overEmailLimit : authErrors.overSmsLimit);
    let user = hasEmail ? await this.repo.findUserByEmail(recipient) : await this.repo.findUserByPhone(recipient);
    if (!user) {
      if (!createUser) throw new AuthError(422, "otp_disabled", "Signups not allowed for otp");
      user = await this.createUser(
        hasEmail
          ? { email: recipient, userMetadata: data, emailConfirmed: false }
          : { phone: recipient, userMetadata: data, phoneConfirmed: false },
      );
      await this.audit(user.id, "user_signedup", meta, { provider: hasEmail ? "email" : "phone", via: "otp" });
    }
    if (hasEmail) {
      const { code, tokenHash } = await this.issueCode("email", recipient, user.id);
      await this.#startFlow(user.id, recipient, "magiclink", input.code_challenge, input.code_challenge_method);
      const link = this.link("magiclink", tokenHash, meta.redirectTo, meta.origin);
      const language = await this.languageOf(user.id, meta);
      await this.send("email", recipient, authText("signInLink", language, { code, link }), "magiclink");
      await this.audit(user.id, "user_confirmation_requested", meta, { channel: "email" });
      return {};
    }
    const { code } = await this.issueCode("sms", recipient, user.id);
    const id = await this.send(channel, recipient, authText("code", await this.languageOf(user.id, meta), { code }), "otp");
    await this.audit(user.id, "user_confirmation_requested", meta, { channel });
    return { message_id: id };
  }

  /** POST /verify: a typed code (with phone or email) or a link's token_hash. Returns a new session. */
  async verify(
    input: { type?: unknown; token?: unknown; token_hash?: unknown; phone?: unknown; email?: unknown },
    meta: RequestMeta,
  ): Promise<{ user: UserRow; session: SessionResponse }> {
    const type = typeof input.type === "string" ? input.type : "";
    const purposes = VERIFY_PURPOSES[type];
    if (!purposes) throw authErrors.validation(`Verify requires a verification type`);
    await this.limiter.hit("verifyPerIp", meta.ip);
    let row: OneTimeTokenRow;
    if (typeof input.token_hash === "string" && input.token_hash !== "") {
      row = await this.consumeTokenHash(purposes, input.token_hash);
    } else {
      const phoneType = type === "sms" || type === "phone_change";
      const raw = phoneType ? input.phone : input.email;
      if (typeof raw !== "string" || raw === "" || typeof input.token !== "string" || input.token === "")
        throw authErrors.validation(
          phoneType
            ? "Only a phone number and token should be provided"
            : "Only an email address or phone number should be provided on verify",
        );
      const relatesTo = phoneType ? this.normalizePhone(raw) : this.normalizeEmail(raw);
      await this.limiter.hit("verifyPerAccount", relatesTo);
      row = await this.consumeCode(purposes, relatesTo, input.token);
    }
    const user = row.user_id ? await this.repo.findUserById(row.user_id) : undefined;
    if (!user) throw authErrors.otpInvalid();
    const confirmed = await this.applyVerification(user, row, meta);
    const method = methodOf(row.purpose);
    await this.audit(user.id, "user_verified", meta, { type });
    return { user: confirmed, session: await this.#sessions.startSession(confirmed, method, meta) };
  }

  async applyVerification(user: UserRow, row: OneTimeTokenRow, meta: RequestMeta): Promise<UserRow> {
    const now = new Date().toISOString();
    if (row.purpose === "sms" && !user.phone_confirmed_at) {
      await this.repo.updateUser(user.id, { phone_confirmed_at: now, updated_at: now });
    } else if (["email", "recovery", "signup", "invite"].includes(row.purpose) && !user.email_confirmed_at) {
      await this.repo.updateUser(user.id, { email_confirmed_at: now, updated_at: now });
    } else if (row.purpose === "email_change" && row.relates_to !== user.email) {
      await this.changeEmail(user, row.relates_to, meta);
    } else if (row.purpose === "phone_change") {
      try {
        await this.repo.transaction(async (repo) => {
          await repo.updateUser(user.id, { phone: row.relates_to, phone_confirmed_at: now, updated_at: now });
          const updated = { ...user, phone: row.relates_to, phone_confirmed_at: now };
          await repo.deleteIdentity(user.id, "phone");
          await this.addIdentity(repo, updated, "phone");
          await repo.updateUser(user.id, { app_metadata: await this.syncProviders(repo, updated) });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw authErrors.phoneExists();
        throw error;
      }
      await this.audit(user.id, "user_modified", meta, { field: "phone" });
    }
    return (await this.repo.findUserById(user.id)) ?? user;
  }

  /** GET /verify (a link): verifies, then redirects with a PKCE code or the session in the fragment. */
  async verifyLink(input: { token?: string; type?: string; redirectTo: string }, meta: RequestMeta): Promise<string> {
    const target = new URL(input.redirectTo);
    try {
      const purposes = VERIFY_PURPOSES[input.type ?? ""];
      if (!purposes) throw authErrors.otpInvalid();
      await this.limiter.hit("verifyPerIp", meta.ip);
      const row = await this.consumeTokenHash(purposes, input.token);
      const user = row.user_id ? await this.repo.findUserById(row.user_id) : undefined;
      if (!user) throw authErrors.otpInvalid();
      const confirmed = await this.applyVerification(user, row, meta);
      const flow = await this.repo.latestOpenFlow(user.id, row.relates_to, new Date().toISOString());
      if (flow) {
        const code = randomUUID();
        await this.repo.setFlowCode(flow.id, sha256Hex(code));
        target.searchParams.set("code", code);
        return target.toString();
      }
      const session = await this.#sessions.startSession(confirmed, methodOf(row.purpose), meta);
      target.hash = new URLSearchParams({
        access_token: session.access_token,
        expires_at: String(session.expires_at),
        expires_in: String(session.expires_in),
        refresh_token: session.refresh_token,
        token_type: "bearer",
        type: input.type ?? "",
      }).toString();
      return target.toString();
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      target.hash = new URLSearchParams({
        error: error.status === 429 ? "rate_limited" : "access_denied",
        error_code: error.errorCode,
        error_description: error.message,
      }).toString();
      return target.toString();
    }
  }

  /** POST /token?grant_type=pkce. */
  async exchangeCode(authCode: unknown, verifier: unknown, meta: RequestMeta): Promise<SessionResponse> {
    if (typeof authCode !== "string" || !authCode || typeof verifier !== "string" || !verifier)
      throw authErrors.validation("invalid request: both auth code and code verifier should be non-empty");
    const flow = await this.repo.findFlowByCode(sha256Hex(authCode));
    if (!flow || flow.used_at || !flow.user_id)
      throw new AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found");
    if (Date.parse(flow.expires_at) < Date.now())
      throw new AuthError(404, "flow_state_expired", "invalid flow state, flow state has expired");
    if (!pkceMatches(verifier, flow.code_challenge, flow.code_challenge_method))
      throw new AuthError(403, "bad_code_verifier", "code challenge does not match previously saved code verifier");
    if (!(await this.repo.consumeFlow(flow.id, new Date().toISOString())))
      throw new AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found");
    const user = await this.repo.findUserById(flow.user_id);
    if (!user) throw authErrors.userNotFound();
    return this.#sessions.startSession(user, flow.authentication_method, meta);
  }

  /** POST /recover: always answers the same; a known address gets a code and a link in the outbox. */
  async recover(
    input: { email?: unknown; code_challenge?: unknown; code_challenge_method?: unknown },
    meta: RequestMeta & { origin: string; redirectTo?: string },
  ) {
    if (typeof input.email !== "string" || input.email === "") throw authErrors.validation("Password recovery requires an email");
    const email = this.normalizeEmail(input.email);
    await this.limiter.hit("recoverPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", email, authErrors.overEmailLimit);
    const user = await this.repo.findUserByEmail(email);
    if (!user) return;
    const { code, tokenHash } = await this.issueCode("recovery", email, user.id);
    await this.#startFlow(user.id, email, "recovery", input.code_challenge, input.code_challenge_method);
    const link = this.link("recovery", tokenHash, meta.redirectTo, meta.origin);
    const language = await this.languageOf(user.id, meta);
    await this.send("email", email, authText("resetLink", language, { code, link }), "recovery");
    await this.audit(user.id, "user_recovery_requested", meta);
  }

  /** POST /resend: sms (unconfirmed phone) and phone_change resend a code; everything else answers {} quietly. */
  async resend(input: { type?: unknown; email?: unknown; phone?: unknown }, meta: RequestMeta): Promise<{ message_id?: string }> {
    const type = input.type;
    if (type !== "signup" && type !== "email_change" && type !== "sms" && type !== "phone_change")
      throw authErrors.validation("Missing one of these types: signup, email_change, sms, phone_change");
    const hasEmail = typeof input.email === "string" && input.email !== "";
    const hasPhone = typeof input.phone === "string" && input.phone !== "";
    if (type === "signup" && !hasEmail) throw authErrors.validation("Type provided requires an email address");
    if (type === "sms" && !hasPhone) throw authErrors.validation("Type provided requires a phone number");
    if (hasEmail && hasPhone) throw authErrors.validation("Only an email address or phone number should be provided.");
    if (!hasEmail && !hasPhone) throw authErrors.validation("Missing email address or phone number");
    const recipient = hasEmail ? this.normalizeEmail(input.email) : this.normalizePhone(input.phone);
    await this.limiter.hit("otpSendPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", recipient, hasEmail ? authErrors.overEmailLimit : authErrors.overSmsLimit);
    let user = hasEmail ? await this.repo.findUserByEmail(recipient) : await this.repo.findUserByPhone(recipient);
    if (!user && type === "phone_change") {
      // The number being changed to: find whose pending change it is.
      const pending = await this.repo.latestActiveToken(recipient, ["phone_change"], new Date().toISOString());
      user = pending?.user_id ? await this.repo.findUserById(pending.user_id) : undefined;
    }
    if (!user) return {};
    if (type === "sms" && !user.phone_confirmed_at && user.phone) {
      const { code } = await this.issueCode("sms", user.phone, user.id);
      const text = authText("code", await this.languageOf(user.id, meta), { code });
      return { message_id: await this.send("sms", user.phone, text, "otp") };
    }
    if (type === "phone_change") {
      const pending = await this.repo.latestActiveTokenOfUser(user.id, ["phone_change"], new Date().toISOString());
      if (!pending) return {};
      const { code } = await this.issueCode("phone_change", pending.relates_to, user.id);
      const text = authText("phoneChangeCode", await this.languageOf(user.id, meta), { code });
      return { message_id: await this.send("sms", pending.relates_to, text, "phone_change") };
    }
    return {};
  }

  /** GET /reauthenticate: a nonce for sensitive changes, sent to the user's e-mail or phone. */
  async reauthenticate(caller: Caller, meta: RequestMeta) {
    const { user } = caller;
    if (!user.email && !user.phone)
      throw new AuthError(422, "validation_failed", "Reauthentication requires the user to have an email or a phone number");
    await this.limiter.hit("otpSendPerRecipient", user.email ?? (user.phone as string), authErrors.overSmsLimit);
    const { code } = await this.issueCode("reauthentication", user.id, user.id);
    const text = authText("confirmationCode", await this.languageOf(user.id, meta), { code });
    if (user.email) await this.send("email", user.email, text, "reauthentication");
    else await this.send("sms", user.phone as string, text, "reauthentication");
    await this.audit(user.id, "user_reauthenticate_requested", meta);
  }
}
