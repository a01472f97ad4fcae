import { randomUUID } from "node:crypto";
import { isValidUsername, type Language, MIN_PASSWORD_LENGTH } from "@hikaya/contracts";
import * as OTPAuth from "otpauth";
import { renderSVG } from "uqr";
import type { Config } from "../../config.ts";
import { isForeignKeyViolation, isUniqueViolation } from "../../db/dialect.ts";
import { type MessageProvider, MessageSendError } from "../../infrastructure/sms/index.ts";
import type { AccessTokenClaims, AccessTokens } from "./access-tokens.ts";
import type { AuthRepository, OneTimeTokenRow, SessionRow, UserRow } from "./auth.repository.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import { gotruePhone, supabasePhone } from "./phone.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import {
  burnPasswordCheck,
  emailTokenHash,
  hashPassword,
  hmacHex,
  pkceMatches,
  randomToken,
  safeEqual,
  sha256Hex,
  sixDigitCode,
  verifyPassword,
} from "./secrets.ts";
import { authText, chooseLanguage } from "./texts.ts";
import { parseJson, type SupabaseFactor, type SupabaseUser, toSupabaseFactor, toSupabaseUser } from "./user-view.ts";

export const OTP_TTL_MS = 5 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;
export const RESET_TOKEN_TTL_MS = 10 * 60_000;
export const REFRESH_REUSE_GRACE_MS = 10_000;
const FLOW_TTL_MS = 10 * 60_000;
const MFA_CHALLENGE_TTL_MS = 5 * 60_000;

/** GoTrue's check (checkmail.ValidateFormat): a local part of the allowed characters, an @, and host labels. */
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export interface RequestMeta {
  ip: string;
  userAgent: string | null;
  /** The language the request asks for (body `language` or Accept-Language), for the texts sent. */
  language?: Language | null;
  /** The origin the request came to, the access tokens' issuer when PUBLIC_URL is unset. */
  requestOrigin?: string;
}

type Amr = { method: string; timestamp: number }[];

export interface SessionResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: SupabaseUser;
}

/** Who called with a user access token, once the token and its session are checked. */
export interface Caller {
  claims: AccessTokenClaims;
  user: UserRow;
  session: SessionRow;
}

export type OtpPurpose =
  | "sms"
  | "phone_change"
  | "email"
  | "signup"
  | "invite"
  | "email_change"
  | "recovery"
  | "reauthentication"
  | "api_recovery"
  | "api_reset";

/** An invitation waits longer than a sign-in code: the person may read the message tomorrow (GoTrue: a day). */
const INVITE_TTL_MS = 24 * 3_600_000;
const LINK_TYPES = ["signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new"];

/** Which stored purposes a Supabase verify `type` accepts. */
const VERIFY_PURPOSES: Record<string, OtpPurpose[]> = {
  sms: ["sms"],
  phone_change: ["phone_change"],
  email: ["email"],
  magiclink: ["email"],
  signup: ["email", "signup"],
  invite: ["invite"],
  email_change: ["email_change"],
  recovery: ["recovery"],
};

/** The amr method a verified one-time token signs in with. */
const methodOf = (purpose: string): string =>
  ({ recovery: "recovery", email: "magiclink", invite: "invite", signup: "otp", email_change: "email_change" })[purpose] ?? "otp";

export interface AuthServiceDeps {
  repo: AuthRepository;
  tokens: AccessTokens;
  messages: MessageProvider;
  limiter: RateLimiter;
  hmacSecret: Buffer;
  config: Pick<Config, "auth" | "publicUrl" | "admin" | "usernameEmailDomain">;
}

/**
 * The one user store behind /auth/v1 and the phone-number API: accounts, passwords, sessions with
 * rotating refresh tokens, one-time codes, PKCE, TOTP factors, and the admin operations. Throws AuthError.
 */
export class AuthService {
  private readonly repo: AuthRepository;
  readonly #tokens: AccessTokens;
  readonly #messages: MessageProvider;
  private readonly limiter: RateLimiter;
  readonly #secret: Buffer;
  readonly #config: AuthServiceDeps["config"];

  constructor(deps: AuthServiceDeps) {
    this.repo = deps.repo;
    this.#tokens = deps.tokens;
    this.#messages = deps.messages;
    this.limiter = deps.limiter;
    this.#secret = deps.hmacSecret;
    this.#config = deps.config;
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────────────────

  checkPassword(password: unknown): string {
    if (typeof password !== "string" || [...password].length < MIN_PASSWORD_LENGTH) throw authErrors.weakPassword();
    if (password.length > 1024) throw authErrors.validation("Password is too long");
    return password;
  }

  normalizeEmail(email: unknown): string {
    if (typeof email !== "string" || email.trim() === "") throw authErrors.validation("An email address is required");
    if (email.length > 255) throw authErrors.validation("An email address is too long");
    if (!EMAIL_RE.test(email.trim())) throw authErrors.invalidEmail();
    return email.trim().toLowerCase();
  }

  /** A phone number as /auth/v1 takes it (Supabase's rule); /api checks per country before it gets here. */
  normalizePhone(phone: unknown): string {
    const e164 = typeof phone === "string" ? gotruePhone(phone) : null;
    if (!e164) throw authErrors.invalidPhone();
    return e164;
  }

  hashPassword(password: string): Promise<string> {
    return hashPassword(password, this.#config.auth.scryptLogN);
  }

  async view(user: UserRow): Promise<SupabaseUser> {
    const [identities, factors] = await Promise.all([this.repo.identitiesOf([user.id]), this.repo.factorsOf([user.id])]);
    const pendingPhone = await this.repo.latestActiveTokenOfUser(user.id, ["phone_change"], new Date().toISOString());
    return toSupabaseUser(user, identities, factors, pendingPhone ? { newPhone: pendingPhone.relates_to } : {});
  }

  async views(users: UserRow[]): Promise<SupabaseUser[]> {
    const ids = users.map((u) => u.id);
    const [identities, factors] = await Promise.all([this.repo.identitiesOf(ids), this.repo.factorsOf(ids)]);
    return users.map((u) =>
      toSupabaseUser(
        u,
        identities.filter((i) => i.user_id === u.id),
        factors.filter((f) => f.user_id === u.id),
      ),
    );
  }

  async audit(userId: string | null, action: string, meta: RequestMeta | null, payload?: Record<string, unknown>) {
    await this.repo.audit({ userId, action, ip: meta?.ip ?? null, ...(payload ? { payload } : {}) });
  }

  #otpHash(tokenHash: string): string {
    return hmacHex(this.#secret, tokenHash);
  }

  /** A stable id for a phone nobody registered, so answers do not reveal who has an account. */
  decoyUserId(subject: string): string {
    const h = hmacHex(this.#secret, `decoy:${subject}`);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((Number.parseInt(h[16] ?? "0", 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  // ── accounts ─────────────────────────────────────────────────────────────────────────────────

  /** Creates a user with its identity (email or phone); confirmed, since this server sends no confirmation mail. */
  async createUser(input: {
    email?: string | null;
    phone?: string | null;
    password?: string | null;
    userMetadata?: Record<string, unknown>;
    appMetadata?: Record<string, unknown>;
    emailConfirmed?: boolean;
    phoneConfirmed?: boolean;
  }): Promise<UserRow> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const providers = [...(input.email ? ["email"] : []), ...(input.phone ? ["phone"] : [])];
    const appMetadata = { provider: providers[0] ?? "email", providers, ...(input.appMetadata ?? {}) };
    const row: UserRow = {
      id,
      email: input.email ?? null,
      phone: input.phone ?? null,
      encrypted_password: input.password ? await this.hashPassword(input.password) : null,
      role: "authenticated",
      app_metadata: JSON.stringify(appMetadata),
      user_metadata: JSON.stringify(input.userMetadata ?? {}),
      email_confirmed_at: input.email && input.emailConfirmed !== false ? now : null,
      phone_confirmed_at: input.phone && input.phoneConfirmed !== false ? now : null,
      last_sign_in_at: null,
      banned_until: null,
      is_anonymous: 0,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    try {
      await this.repo.transaction(async (repo) => {
        await repo.insertUser(row);
        if (row.email) await this.#addIdentity(repo, row, "email");
        if (row.phone) await this.#addIdentity(repo, row, "phone");
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw input.email ? authErrors.userExists() : authErrors.phoneExists();
      throw error;
    }
    return row;
  }

  async #addIdentity(repo: AuthRepository, user: UserRow, provider: "email" | "phone") {
    const now = new Date().toISOString();
    const data =
      provider === "email"
        ? { sub: user.id, email: user.email, email_verified: user.email_confirmed_at !== null, phone_verified: false }
        : { sub: user.id, phone: user.phone, email_verified: false, phone_verified: user.phone_confirmed_at !== null };
    await repo.insertIdentity({
      id: randomUUID(),
      provider_id: user.id,
      user_id: user.id,
      provider,
      identity_data: JSON.stringify(data),
      email: provider === "email" ? user.email : null,
      last_sign_in_at: null,
      created_at: now,
      updated_at: now,
    });
  }

  /** Keeps app_metadata.providers in step with the identities. */
  async #syncProviders(repo: AuthRepository, user: UserRow): Promise<string> {
    const identities = await repo.identitiesOf([user.id]);
    const providers = [...new Set(identities.map((i) => i.provider))];
    const app = parseJson(user.app_metadata);
    const next = JSON.stringify({ ...app, provider: app.provider ?? providers[0] ?? "email", providers });
    return next;
  }

  async signUp(input: { email?: unknown; phone?: unknown; password?: unknown; data?: unknown }, meta: RequestMeta) {
    await this.limiter.hit("signUpPerIp", meta.ip);
    const hasEmail = typeof input.email === "string" && input.email !== "";
    const hasPhone = typeof input.phone === "string" && input.phone !== "";
    // supabase-js signInAnonymously posts /signup with neither; anonymous users are not enabled here.
    if (!hasEmail && !hasPhone) throw new AuthError(422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled");
    if (hasEmail && hasPhone) throw authErrors.validation("Only an email address or phone number should be provided on signup.");
    const email = hasEmail ? this.normalizeEmail(input.email) : null;
    const phone = hasPhone ? this.normalizePhone(input.phone) : null;
    // A username (an address on the username domain) follows the rule the sign-up screen states.
    const domain = `@${this.#config.usernameEmailDomain}`;
    if (email?.endsWith(domain) && !isValidUsername(email.slice(0, -domain.length)))
      throw new AuthError(422, "validation_failed", "Username may use letters, digits, dots and dashes (3 to 30 characters)", {
        appCode: "invalid_username",
      });
    const password = this.checkPassword(input.password);
    const existing = email ? await this.repo.findUserByEmail(email) : await this.repo.findUserByPhone(phone as string);
    if (existing) throw authErrors.userExists();
    const userMetadata =
      input.data && typeof input.data === "object" && !Array.isArray(input.data) ? (input.data as Record<string, unknown>) : {};
    const user = await this.createUser({ email, phone, password, userMetadata });
    await this.audit(user.id, "user_signedup", meta, { provider: email ? "email" : "phone" });
    return this.startSession(user, email ? "password" : "password", meta);
  }

  async signInWithPassword(input: { email?: unknown; phone?: unknown; password?: unknown }, meta: RequestMeta) {
    const email = typeof input.email === "string" && input.email !== "" ? input.email.trim().toLowerCase() : null;
    const phone = typeof input.phone === "string" && input.phone !== "" ? gotruePhone(input.phone) : null;
    const account = email ?? phone ?? (typeof input.phone === "string" ? input.phone : "");
    await this.limiter.hit("signInPerIp", meta.ip);
    if (account) await this.limiter.hit("signInPerAccount", account);
    const password = typeof input.password === "string" ? input.password : "";
    const user = email ? await this.repo.findUserByEmail(email) : phone ? await this.repo.findUserByPhone(phone) : undefined;
    if (!user?.encrypted_password) {
      await burnPasswordCheck(password, this.#config.auth.scryptLogN);
      await this.audit(user?.id ?? null, "login_failed", meta, { reason: "unknown_account" });
      throw authErrors.invalidCredentials();
    }
    if (!(await verifyPassword(password, user.encrypted_password))) {
      await this.audit(user.id, "login_failed", meta, { reason: "wrong_password" });
      throw authErrors.invalidCredentials();
    }
    return this.startSession(user, "password", meta);
  }

  // ── sessions ─────────────────────────────────────────────────────────────────────────────────

  #checkBan(user: UserRow) {
    if (user.banned_until && Date.parse(user.banned_until) > Date.now()) throw authErrors.bannedUser();
  }

  /** Signs a user in: a new session, its first refresh token and an access token. */
  async startSession(user: UserRow, method: string, meta: RequestMeta): Promise<SessionResponse> {
    this.#checkBan(user);
    const now = new Date();
    const nowIso = now.toISOString();
    const session: SessionRow = {
      id: randomUUID(),
      user_id: user.id,
      aal: "aal1",
      amr: JSON.stringify([{ method, timestamp: Math.floor(now.getTime() / 1000) }]),
      factor_id: null,
      user_agent: meta.userAgent?.slice(0, 512) ?? null,
      ip: meta.ip,
      created_at: nowIso,
      updated_at: nowIso,
      refreshed_at: null,
    };
    const refreshToken = randomToken();
    await this.repo.transaction(async (repo) => {
      await repo.insertSession(session);
      await repo.insertRefreshToken({
        token_hash: sha256Hex(refreshToken),
        session_id: session.id,
        user_id: user.id,
        parent_id: null,
        created_at: nowIso,
      });
      await repo.updateUser(user.id, { last_sign_in_at: nowIso });
      await repo.updateIdentity(user.id, method === "otp" && user.phone ? "phone" : "email", { last_sign_in_at: nowIso });
    });
    await this.audit(user.id, "login", meta, { method, session_id: session.id });
    const fresh = (await this.repo.findUserById(user.id)) ?? user;
    return this.#sessionResponse(fresh, session, refreshToken, meta);
  }

  async #sessionResponse(user: UserRow, session: SessionRow, refreshToken: string, meta: RequestMeta): Promise<SessionResponse> {
    const view = await this.view(user);
    const { token, expiresAt } = await this.#tokens.issue({
      userId: user.id,
      email: user.email,
      phone: supabasePhone(user.phone),
      appMetadata: view.app_metadata,
      userMetadata: view.user_metadata,
      isAnonymous: view.is_anonymous,
      sessionId: session.id,
      aal: session.aal === "aal2" ? "aal2" : "aal1",
      amr: JSON.parse(session.amr) as Amr,
      ...(meta.requestOrigin ? { origin: meta.requestOrigin } : {}),
    });
    return {
      access_token: token,
      token_type: "bearer",
      expires_in: this.#tokens.ttlSeconds,
      expires_at: expiresAt,
      refresh_token: refreshToken,
      user: view,
    };
  }

  /**
   * Rotates a refresh token. A token already rotated may be presented again within a short grace
   * interval (two tabs refreshing at once); after it, reuse means theft, and the whole session ends.
   */
  async refresh(refreshToken: unknown, meta: RequestMeta): Promise<SessionResponse> {
    await this.limiter.hit("refreshPerIp", meta.ip);
    if (typeof refreshToken !== "string" || refreshToken === "") throw authErrors.refreshNotFound();
    const row = await this.repo.findRefreshToken(sha256Hex(refreshToken));
    if (!row) throw authErrors.refreshNotFound();
    const session = await this.repo.findSession(row.session_id);
    if (!session) throw authErrors.refreshNotFound();
    const now = new Date();
    const idleDays = this.#config.auth.sessionInactivityDays;
    if (idleDays > 0 && now.getTime() - Date.parse(session.refreshed_at ?? session.created_at) > idleDays * 86_400_000) {
      await this.repo.deleteSession(session.id);
      await this.audit(row.user_id, "token_revoked", meta, { reason: "inactivity", session_id: session.id });
      throw new AuthError(400, "session_expired", "Invalid Refresh Token: Session Expired (Inactivity)", {
        appCode: "token_expired",
      });
    }
    let parentId = row.id;
    const rotated = row.revoked === 0 && (await this.repo.revokeRefreshToken(row.id, now.toISOString()));
    if (!rotated) {
      const revokedAt = row.revoked_at ? Date.parse(row.revoked_at) : now.getTime();
      if (now.getTime() - revokedAt > REFRESH_REUSE_GRACE_MS) {
        // As GoTrue: when the token that replaced this one was never used, the client most likely lost the answer
        // that carried it, so it gets the session's active token (a fresh one here: only hashes are stored).
        const latest = await this.repo.latestRefreshTokenOfSession(session.id);
        const recoverable =
          latest?.parent_id === row.id &&
          latest.revoked === 0 &&
          (await this.repo.revokeRefreshToken(latest.id, now.toISOString()));
        if (!latest || !recoverable) {
          await this.repo.deleteSession(session.id);
          await this.audit(row.user_id, "token_revoked", meta, { reason: "refresh_token_reuse", session_id: session.id });
          throw authErrors.refreshAlreadyUsed();
        }
        parentId = latest.id;
      }
    }
    const user = await this.repo.findUserById(row.user_id);
    if (!user) throw authErrors.refreshNotFound();
    this.#checkBan(user);
    const next = randomToken();
    await this.repo.insertRefreshToken({
      token_hash: sha256Hex(next),
      session_id: session.id,
      user_id: user.id,
      parent_id: parentId,
      created_at: now.toISOString(),
    });
    await this.repo.updateSession(session.id, { refreshed_at: now.toISOString(), updated_at: now.toISOString() });
    await this.audit(user.id, "token_refreshed", meta, { session_id: session.id });
    return this.#sessionResponse(user, session, next, meta);
  }

  /** The signed-in person behind verified claims, or null when the user or the session is gone. */
  async callerOf(auth: { userId: string; sessionId: string; claims: AccessTokenClaims }): Promise<Caller | null> {
    const [user, session] = await Promise.all([this.repo.findUserById(auth.userId), this.repo.findSession(auth.sessionId)]);
    return user && session ? { claims: auth.claims, user, session } : null;
  }

  isSessionActive(sessionId: string): Promise<boolean> {
    return this.repo.sessionExists(sessionId);
  }

  /** Checks a user access token: signature, expiry, live session, existing user. */
  async authenticate(token: string | null): Promise<Caller> {
    if (!token) throw authErrors.noAuthorization();
    let claims: AccessTokenClaims;
    try {
      claims = await this.#tokens.verify(token);
    } catch (error) {
      const expired = (error as { code?: string }).code === "token_expired";
      throw authErrors.badJwt(expired ? "token has invalid claims: token is expired" : "token is malformed or wrongly signed");
    }
    const [session, user] = await Promise.all([this.repo.findSession(claims.session_id), this.repo.findUserById(claims.sub)]);
    if (!user) throw authErrors.userNotFoundFromJwt();
    if (!session || session.user_id !== user.id) throw authErrors.sessionNotFound();
    return { claims, user, session };
  }

  async logout(caller: Caller, scope: string, meta: RequestMeta) {
    if (scope === "global") await this.repo.deleteSessionsOf(caller.user.id);
    else if (scope === "others") await this.repo.deleteSessionsOf(caller.user.id, caller.session.id);
    else if (scope === "local") await this.repo.deleteSession(caller.session.id);
    else throw authErrors.validation(`Unsupported logout scope "${scope}"`);
    await this.audit(caller.user.id, "logout", meta, { scope });
  }

  // ── one-time codes ───────────────────────────────────────────────────────────────────────────

  /** Stores a code (hashed) and returns it. `relatesTo` is the phone, e-mail or user id it was sent for. */
  async issueCode(purpose: OtpPurpose, relatesTo: string, userId: string | null, code = sixDigitCode(), ttlMs = OTP_TTL_MS) {
    const now = Date.now();
    const tokenHash = emailTokenHash(relatesTo, code);
    await this.repo.insertOneTimeToken({
      id: randomUUID(),
      user_id: userId,
      purpose,
      relates_to: relatesTo,
      token_hash: this.#otpHash(tokenHash),
      attempts: 0,
      expires_at: new Date(now + ttlMs).toISOString(),
      used_at: null,
      created_at: new Date(now).toISOString(),
    });
    return { code, tokenHash };
  }

  /** Checks a typed code: at most OTP_MAX_ATTEMPTS wrong tries, then it is spent; single use. */
  async consumeCode(purposes: OtpPurpose[], relatesTo: string, code: unknown): Promise<OneTimeTokenRow> {
    const now = new Date().toISOString();
    const row = await this.repo.latestActiveToken(relatesTo, purposes, now);
    if (!row || typeof code !== "string") throw authErrors.otpInvalid();
    const expected = this.#otpHash(emailTokenHash(relatesTo, code.trim()));
    if (!safeEqual(row.token_hash, expected)) {
      const spent = await this.repo.failTokenAttempt(row.id, OTP_MAX_ATTEMPTS, now);
      throw spent ? authErrors.otpSpent() : authErrors.otpInvalid();
    }
    if (!(await this.repo.consumeToken(row.id, now))) throw authErrors.otpInvalid();
    return row;
  }

  /** Checks a link's token_hash (256-bit, so no try counting is needed). */
  async consumeTokenHash(purposes: OtpPurpose[], tokenHash: unknown): Promise<OneTimeTokenRow> {
    if (typeof tokenHash !== "string" || !/^[0-9a-f]{64}$/i.test(tokenHash)) throw authErrors.otpInvalid();
    const now = new Date().toISOString();
    const row = await this.repo.activeTokenByHash(this.#otpHash(tokenHash.toLowerCase()), purposes, now);
    if (!row || !(await this.repo.consumeToken(row.id, now))) throw authErrors.otpInvalid();
    return row;
  }

  async send(channel: "sms" | "whatsapp" | "email", to: string, body: string, purpose: string): Promise<string> {
    try {
      return (await this.#messages.send({ channel, to, body, purpose })).id;
    } catch (error) {
      if (error instanceof MessageSendError) throw authErrors.smsSendFailed();
      throw error;
    }
  }

  #link(type: string, tokenHash: string, redirectTo: string | undefined, origin: string): string {
    const url = new URL(`${this.#config.publicUrl ?? origin}/auth/v1/verify`);
    url.searchParams.set("token", tokenHash);
    url.searchParams.set("type", type);
    if (redirectTo) url.searchParams.set("redirect_to", redirectTo);
    return url.toString();
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
      const link = this.#link("magiclink", tokenHash, meta.redirectTo, meta.origin);
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
    const confirmed = await this.#applyVerification(user, row, meta);
    const method = methodOf(row.purpose);
    await this.audit(user.id, "user_verified", meta, { type });
    return { user: confirmed, session: await this.startSession(confirmed, method, meta) };
  }

  async #applyVerification(user: UserRow, row: OneTimeTokenRow, meta: RequestMeta): Promise<UserRow> {
    const now = new Date().toISOString();
    if (row.purpose === "sms" && !user.phone_confirmed_at) {
      await this.repo.updateUser(user.id, { phone_confirmed_at: now, updated_at: now });
    } else if (["email", "recovery", "signup", "invite"].includes(row.purpose) && !user.email_confirmed_at) {
      await this.repo.updateUser(user.id, { email_confirmed_at: now, updated_at: now });
    } else if (row.purpose === "email_change" && row.relates_to !== user.email) {
      await this.#changeEmail(user, row.relates_to, meta);
    } else if (row.purpose === "phone_change") {
      try {
        await this.repo.transaction(async (repo) => {
          await repo.updateUser(user.id, { phone: row.relates_to, phone_confirmed_at: now, updated_at: now });
          const updated = { ...user, phone: row.relates_to, phone_confirmed_at: now };
          await repo.deleteIdentity(user.id, "phone");
          await this.#addIdentity(repo, updated, "phone");
          await repo.updateUser(user.id, { app_metadata: await this.#syncProviders(repo, updated) });
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
      const confirmed = await this.#applyVerification(user, row, meta);
      const flow = await this.repo.latestOpenFlow(user.id, row.relates_to, new Date().toISOString());
      if (flow) {
        const code = randomUUID();
        await this.repo.setFlowCode(flow.id, sha256Hex(code));
        target.searchParams.set("code", code);
        return target.toString();
      }
      const session = await this.startSession(confirmed, methodOf(row.purpose), meta);
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
    return this.startSession(user, flow.authentication_method, meta);
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
    const link = this.#link("recovery", tokenHash, meta.redirectTo, meta.origin);
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

  /** PUT /user. */
  async updateUser(
    caller: Caller,
    input: {
      email?: unknown;
      phone?: unknown;
      password?: unknown;
      data?: unknown;
      app_metadata?: unknown;
      nonce?: unknown;
      channel?: unknown;
    },
    meta: RequestMeta,
  ): Promise<UserRow> {
    const { user } = caller;
    const now = new Date().toISOString();
    const setsAppMetadata = input.app_metadata !== undefined && input.app_metadata !== null;
    const isAdmin = parseJson(user.app_metadata).role === "admin";
    if (setsAppMetadata && !isAdmin) throw new AuthError(403, "not_admin", "Updating app_metadata requires admin privileges");
    const changesPassword = typeof input.password === "string" && input.password !== "";
    const changesEmail = typeof input.email === "string" && input.email !== "" && input.email.trim().toLowerCase() !== user.email;
    if ((changesPassword || changesEmail) && caller.session.aal !== "aal2") {
      const factors = await this.repo.factorsOf([user.id]);
      if (factors.some((f) => f.status === "verified"))
        throw new AuthError(401, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled.");
    }
    if (input.nonce !== undefined && input.nonce !== null && input.nonce !== "") {
      await this.consumeCode(["reauthentication"], user.id, input.nonce);
    }
    if (input.password !== undefined && input.password !== null) {
      const password = this.checkPassword(input.password);
      if (await verifyPassword(password, user.encrypted_password))
        throw new AuthError(422, "same_password", "New password should be different from the old password.");
      await this.repo.updateUser(user.id, { encrypted_password: await this.hashPassword(password), updated_at: now });
      await this.repo.deleteSessionsOf(user.id, caller.session.id);
      await this.audit(user.id, "user_updated_password", meta);
    }
    if (input.data !== undefined && input.data !== null) {
      if (typeof input.data !== "object" || Array.isArray(input.data)) throw authErrors.validation("data must be an object");
      const merged = { ...parseJson(user.user_metadata) };
      for (const [k, v] of Object.entries(input.data as Record<string, unknown>)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      await this.repo.updateUser(user.id, { user_metadata: JSON.stringify(merged), updated_at: now });
    }
    if (setsAppMetadata) {
      if (typeof input.app_metadata !== "object" || Array.isArray(input.app_metadata))
        throw authErrors.validation("app_metadata must be an object");
      const merged = { ...parseJson(user.app_metadata), ...(input.app_metadata as Record<string, unknown>) };
      await this.repo.updateUser(user.id, { app_metadata: JSON.stringify(merged), updated_at: now });
    }
    if (typeof input.email === "string" && input.email !== "") {
      const email = this.normalizeEmail(input.email);
      if (email !== user.email) {
        if (await this.repo.findUserByEmail(email)) throw authErrors.emailExists();
        // No mail is sent from here (usernames are e-mail-shaped, not mailboxes), so a change applies at once.
        await this.#changeEmail(user, email, meta);
      }
    }
    if (typeof input.phone === "string" && input.phone !== "") {
      const phone = this.normalizePhone(input.phone);
      if (phone !== user.phone) {
        if (await this.repo.findUserByPhone(phone)) throw authErrors.phoneExists();
        const channel = input.channel === "whatsapp" ? "whatsapp" : "sms";
        await this.limiter.hit("otpSendPerRecipient", phone, authErrors.overSmsLimit);
        const { code } = await this.issueCode("phone_change", phone, user.id);
        await this.send(
          channel,
          phone,
          authText("phoneChangeCode", await this.languageOf(user.id, meta), { code }),
          "phone_change",
        );
        await this.audit(user.id, "user_modified", meta, { field: "phone", pending: true });
      }
    }
    return (await this.repo.findUserById(user.id)) ?? user;
  }

  /** Makes `email` the person's confirmed address: user, identity and providers together. */
  async #changeEmail(user: UserRow, email: string, meta: RequestMeta) {
    const now = new Date().toISOString();
    try {
      await this.repo.transaction(async (repo) => {
        await repo.updateUser(user.id, { email, email_confirmed_at: now, updated_at: now });
        const updated = { ...user, email, email_confirmed_at: now };
        await repo.deleteIdentity(user.id, "email");
        await this.#addIdentity(repo, updated, "email");
        await repo.updateUser(user.id, { app_metadata: await this.#syncProviders(repo, updated) });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw authErrors.emailExists();
      throw error;
    }
    await this.audit(user.id, "user_modified", meta, { field: "email" });
  }

  // ── MFA (TOTP) ───────────────────────────────────────────────────────────────────────────────

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
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.secret) });
    const delta = /^\d{6}$/.test(input.code) ? totp.validate({ token: input.code, window: 1 }) : null;
    const step = Math.floor(Date.now() / 30_000) + (delta ?? 0);
    if (delta === null || (factor.last_used_step !== null && step <= factor.last_used_step)) {
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
    return this.#sessionResponse(caller.user, session, refreshToken, meta);
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

  // ── the person's own account (modules/account) ───────────────────────────────────────────────

  /** The language texts to this person are written in: their stored choice, else the request's. */
  async languageOf(userId: string | null, meta: RequestMeta | null): Promise<Language> {
    const profile = userId ? await this.repo.findProfile(userId) : undefined;
    return chooseLanguage(profile?.language, meta?.language);
  }

  async findUser(userId: string): Promise<UserRow | undefined> {
    return this.repo.findUserById(userId);
  }

  /** Whether `password` is the person's current password. */
  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const user = await this.repo.findUserById(userId);
    return Boolean(user?.encrypted_password) && (await verifyPassword(password, user?.encrypted_password ?? null));
  }

  /** Sends a code to a new login phone. Nothing changes until confirmPhoneChange gets that code. */
  async requestPhoneChange(userId: string, phone: string, channel: "sms" | "whatsapp", meta: RequestMeta) {
    if (await this.repo.findUserByPhone(phone))
      throw new AuthError(422, "phone_exists", "This phone number belongs to another account", { appCode: "phone_in_use" });
    await this.limiter.hit("otpSendPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", phone, authErrors.overSmsLimit);
    const { code } = await this.issueCode("phone_change", phone, userId);
    const language = await this.languageOf(userId, meta);
    await this.send(channel, phone, authText("phoneChangeCode", language, { code }), "phone_change");
    await this.audit(userId, "user_modified", meta, { field: "phone", pending: true });
  }

  /** The code sent to the new number makes it the login phone (user, identity and providers together). */
  async confirmPhoneChange(userId: string, phone: string, code: string, meta: RequestMeta) {
    await this.limiter.hit("verifyPerAccount", userId);
    const row = await this.consumeCode(["phone_change"], phone, code);
    const user = await this.repo.findUserById(userId);
    if (!user || row.user_id !== userId) throw authErrors.otpInvalid();
    await this.#applyVerification(user, row, meta);
  }

  /** Deletes the account and everything the database ties to it (sessions end with it). */
  async deleteUser(id: string, meta: RequestMeta, by: "admin" | "self") {
    const user = await this.repo.findUserById(id);
    if (!user) throw authErrors.userNotFound();
    try {
      await this.repo.deleteUser(id);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      // Other records still point at this person: keep the row, but free the address and end every session.
      const now = new Date().toISOString();
      await this.repo.deleteSessionsOf(id);
      await this.repo.updateUser(id, { email: null, phone: null, encrypted_password: null, deleted_at: now, updated_at: now });
    }
    await this.audit(id, "user_deleted", meta, { by });
  }

  // ── admin ────────────────────────────────────────────────────────────────────────────────────

  async adminCreateUser(input: Record<string, unknown>, meta: RequestMeta): Promise<UserRow> {
    const email = typeof input.email === "string" && input.email !== "" ? this.normalizeEmail(input.email) : null;
    const phone = typeof input.phone === "string" && input.phone !== "" ? this.normalizePhone(input.phone) : null;
    const password = input.password !== undefined && input.password !== null ? this.checkPassword(input.password) : null;
    if (email && (await this.repo.findUserByEmail(email))) throw authErrors.emailExists();
    if (phone && (await this.repo.findUserByPhone(phone))) throw authErrors.phoneExists();
    const user = await this.createUser({
      email,
      phone,
      password,
      userMetadata: objectOr(input.user_metadata),
      appMetadata: objectOr(input.app_metadata),
      emailConfirmed: input.email_confirm === true,
      phoneConfirmed: input.phone_confirm === true,
    });
    if (typeof input.ban_duration === "string")
      await this.repo.updateUser(user.id, { banned_until: banUntil(input.ban_duration) });
    await this.audit(user.id, "user_signedup", meta, { by: "admin" });
    return (await this.repo.findUserById(user.id)) ?? user;
  }

  async adminUpdateUser(id: string, input: Record<string, unknown>, meta: RequestMeta): Promise<UserRow> {
    const user = await this.repo.findUserById(id);
    if (!user) throw authErrors.userNotFound();
    const now = new Date().toISOString();
    const patch: Record<string, unknown> = { updated_at: now };
    if (typeof input.email === "string" && input.email !== "") {
      const email = this.normalizeEmail(input.email);
      const other = await this.repo.findUserByEmail(email);
      if (other && other.id !== id) throw authErrors.emailExists();
      patch.email = email;
      patch.email_confirmed_at = user.email_confirmed_at ?? now;
    }
    if (typeof input.phone === "string" && input.phone !== "") {
      const phone = this.normalizePhone(input.phone);
      const other = await this.repo.findUserByPhone(phone);
      if (other && other.id !== id) throw authErrors.phoneExists();
      patch.phone = phone;
      patch.phone_confirmed_at = user.phone_confirmed_at ?? now;
    }
    if (input.password !== undefined && input.password !== null)
      patch.encrypted_password = await this.hashPassword(this.checkPassword(input.password));
    if (input.email_confirm === true) patch.email_confirmed_at = user.email_confirmed_at ?? now;
    if (input.phone_confirm === true) patch.phone_confirmed_at = user.phone_confirmed_at ?? now;
    if (input.user_metadata && typeof input.user_metadata === "object")
      patch.user_metadata = JSON.stringify({ ...parseJson(user.user_metadata), ...objectOr(input.user_metadata) });
    if (input.app_metadata && typeof input.app_metadata === "object")
      patch.app_metadata = JSON.stringify({ ...parseJson(user.app_metadata), ...objectOr(input.app_metadata) });
    if (typeof input.ban_duration === "string") patch.banned_until = banUntil(input.ban_duration);
    await this.repo.transaction(async (repo) => {
      await repo.updateUser(id, patch);
      const updated = { ...user, ...patch } as UserRow;
      if (patch.email && user.email !== patch.email) {
        await repo.deleteIdentity(id, "email");
        await this.#addIdentity(repo, updated, "email");
      }
      if (patch.phone && user.phone !== patch.phone) {
        await repo.deleteIdentity(id, "phone");
        await this.#addIdentity(repo, updated, "phone");
      }
      if (patch.email || patch.phone) await repo.updateUser(id, { app_metadata: await this.#syncProviders(repo, updated) });
    });
    if (patch.banned_until) await this.repo.deleteSessionsOf(id);
    await this.audit(id, "user_modified", meta, { by: "admin", fields: Object.keys(input) });
    return (await this.repo.findUserById(id)) ?? user;
  }

  /** The auth audit trail of one person (tests and the console read it). */
  auditOf(userId: string) {
    return this.repo.auditOf(userId);
  }

  /** A page of users for GET /admin/users, with the total for its pagination headers. */
  async adminListUsers(offset: number, limit: number): Promise<{ users: UserRow[]; total: number }> {
    const [users, total] = await Promise.all([this.repo.listUsers(offset, limit), this.repo.countUsers()]);
    return { users, total };
  }

  async adminDeleteUser(id: string, meta: RequestMeta) {
    await this.deleteUser(id, meta, "admin");
  }

  /** POST /invite: creates the person (unconfirmed) and sends an invitation through the message provider. */
  async invite(input: Record<string, unknown>, meta: RequestMeta & { origin: string; redirectTo?: string }) {
    const email = this.normalizeEmail(input.email);
    const user = await this.#invitee(email, input.data);
    const { code, tokenHash } = await this.issueCode("invite", email, user.id, undefined, INVITE_TTL_MS);
    const link = this.#link("invite", tokenHash, meta.redirectTo, meta.origin);
    await this.send("email", email, authText("inviteLink", await this.languageOf(user.id, meta), { code, link }), "invite");
    await this.audit(user.id, "user_invited", meta, { by: "admin" });
    return user;
  }

  /** The person an invitation (or a signup link) is for: new, or not yet confirmed. */
  async #invitee(email: string, data: unknown, password: string | null = null): Promise<UserRow> {
    const existing = await this.repo.findUserByEmail(email);
    if (existing?.email_confirmed_at) throw authErrors.emailExists();
    if (existing) return existing;
    return this.createUser({ email, password, userMetadata: objectOr(data), emailConfirmed: false });
  }

  /** POST /admin/generate_link: the link and code a message would carry, without sending it. */
  async generateLink(input: Record<string, unknown>, meta: RequestMeta & { origin: string }, redirectTo: string | undefined) {
    const type = typeof input.type === "string" ? input.type : "";
    if (!LINK_TYPES.includes(type))
      throw authErrors.validation(`Invalid email action link type requested: ${String(input.type ?? "")}`);
    const email = this.normalizeEmail(input.email);
    let user: UserRow | undefined;
    let purpose: OtpPurpose;
    let relatesTo = email;
    let newEmail: string | undefined;
    if (type === "signup") {
      if (typeof input.password !== "string" || input.password === "")
        throw authErrors.validation("Signup requires a valid password");
      user = await this.#invitee(email, input.data, this.checkPassword(input.password));
      purpose = "signup";
    } else if (type === "invite") {
      user = await this.#invitee(email, input.data);
      purpose = "invite";
    } else if (type === "email_change_current" || type === "email_change_new") {
      user = await this.repo.findUserByEmail(email);
      if (!user) throw authErrors.userNotFound();
      newEmail = this.normalizeEmail(input.new_email);
      const other = await this.repo.findUserByEmail(newEmail);
      if (other && other.id !== user.id) throw authErrors.emailExists();
      // Either link applies the change (Hikaya sends no mail, so one confirmation is enough); both name the new address.
      purpose = "email_change";
      relatesTo = newEmail;
    } else {
      user = await this.repo.findUserByEmail(email);
      if (!user) {
        if (type === "recovery") throw authErrors.userNotFound();
        user = await this.createUser({ email, userMetadata: objectOr(input.data) });
      }
      purpose = type === "recovery" ? "recovery" : "email";
    }
    const ttl = purpose === "invite" || purpose === "signup" ? INVITE_TTL_MS : OTP_TTL_MS;
    const { code, tokenHash } = await this.issueCode(purpose, relatesTo, user.id, undefined, ttl);
    const redirect = redirectTo ?? (typeof input.redirect_to === "string" ? input.redirect_to : undefined);
    const linkType = purpose === "email_change" ? "email_change" : type;
    await this.audit(user.id, "generate_link", meta, { type });
    return {
      ...(await this.view((await this.repo.findUserById(user.id)) ?? user)),
      action_link: this.#link(linkType, tokenHash, redirect, meta.origin),
      email_otp: code,
      hashed_token: tokenHash,
      redirect_to: redirect ?? this.#config.publicUrl ?? meta.origin,
      verification_type: type,
      ...(newEmail ? { new_email: newEmail } : {}),
    };
  }

  /** GET /admin/users/{id}/factors. */
  async adminListFactors(userId: string): Promise<SupabaseFactor[]> {
    if (!(await this.repo.findUserById(userId))) throw authErrors.userNotFound();
    return (await this.repo.factorsOf([userId])).map(toSupabaseFactor);
  }

  /** DELETE /admin/users/{id}/factors/{factorId}: sessions that used the factor drop to aal1. */
  async adminDeleteFactor(userId: string, factorId: string, meta: RequestMeta): Promise<SupabaseFactor> {
    if (!(await this.repo.findUserById(userId))) throw authErrors.userNotFound();
    const factor = await this.repo.findFactor(userId, factorId);
    if (!factor) throw authErrors.mfaFactorNotFound();
    await this.repo.deleteFactor(factor.id);
    await this.repo.downgradeSessionsOfFactor(factor.id, new Date().toISOString());
    await this.audit(userId, "factor_deleted", meta, { factor_id: factor.id, by: "admin" });
    return toSupabaseFactor(factor);
  }

  /** ADMIN_EMAIL / ADMIN_PASSWORD: create or update that admin. Idempotent; safe when two replicas start together. */
  async ensureAdmin(admin: { email: string; password: string }) {
    const email = admin.email.trim().toLowerCase();
    for (let attempt = 0; attempt < 3; attempt++) {
      const user = await this.repo.findUserByEmail(email);
      if (!user) {
        try {
          await this.createUser({ email, password: admin.password, appMetadata: { role: "admin" } });
          await this.audit(null, "admin_bootstrap_created", null, { email });
          return;
        } catch (error) {
          if (error instanceof AuthError && error.errorCode === "user_already_exists") continue; // the other replica won
          throw error;
        }
      }
      const app = parseJson(user.app_metadata);
      const patch: Record<string, unknown> = {};
      if (app.role !== "admin") patch.app_metadata = JSON.stringify({ ...app, role: "admin" });
      if (!(await verifyPassword(admin.password, user.encrypted_password)))
        patch.encrypted_password = await this.hashPassword(admin.password);
      if (!user.email_confirmed_at) patch.email_confirmed_at = new Date().toISOString();
      if (Object.keys(patch).length) {
        await this.repo.updateUser(user.id, { ...patch, updated_at: new Date().toISOString() });
        await this.audit(user.id, "admin_bootstrap_updated", null, { fields: Object.keys(patch) });
      }
      return;
    }
  }
}

const objectOr = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Supabase's ban_duration: "none" or a Go-style duration ("24h", "90m", "876000h"). */
function banUntil(duration: string): string | null {
  if (duration === "none") return null;
  const match = /^(\d+(?:\.\d+)?)(h|m|s|ms)$/.exec(duration);
  if (!match) throw authErrors.validation("invalid format for ban duration");
  const ms = Number(match[1]) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[match[2] as "h" | "m" | "s" | "ms"];
  return new Date(Date.now() + ms).toISOString();
}
