import { randomUUID } from "node:crypto";
import { type Language, MIN_PASSWORD_LENGTH } from "@hikaya/contracts";
import type { Config } from "../../config.ts";
import { isUniqueViolation } from "../../db/dialect.ts";
import { type MessageProvider, MessageSendError } from "../../infrastructure/sms/index.ts";
import type { AccessTokenClaims, AccessTokens } from "./access-tokens.ts";
import type { AuthRepository, SessionRow, UserRow } from "./auth.repository.ts";
import { authErrors } from "./auth-errors.ts";
import type { PasswordHasher } from "./password-hasher.ts";
import { gotruePhone } from "./phone.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { hmacHex } from "./secrets.ts";
import { chooseLanguage } from "./texts.ts";
import { parseJson, type SupabaseUser, toSupabaseUser } from "./user-view.ts";

export const OTP_TTL_MS = 5 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;
export const RESET_TOKEN_TTL_MS = 10 * 60_000;
export const REFRESH_REUSE_GRACE_MS = 10_000;
export const FLOW_TTL_MS = 10 * 60_000;
export const MFA_CHALLENGE_TTL_MS = 5 * 60_000;

/** GoTrue's check (checkmail.ValidateFormat): a local part of the allowed characters, an @, and host labels. */
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export interface RequestMeta {
  ip: string;
  userAgent: string | null;
  /** The language the request asks for (body `language` or Accept-Language), for the texts sent. */
  language?: Language | null;
}

export type Amr = { method: string; timestamp: number }[];

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
export const INVITE_TTL_MS = 24 * 3_600_000;
export const LINK_TYPES = ["signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new"];

/** Which stored purposes a Supabase verify `type` accepts. */
export const VERIFY_PURPOSES: Record<string, OtpPurpose[]> = {
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
export const methodOf = (purpose: string): string =>
  ({ recovery: "recovery", email: "magiclink", invite: "invite", signup: "otp", email_change: "email_change" })[purpose] ?? "otp";

export interface AuthCoreDeps {
  repo: AuthRepository;
  tokens: AccessTokens;
  messages: MessageProvider;
  limiter: RateLimiter;
  hmacSecret: Buffer;
  hasher: PasswordHasher;
  config: Pick<Config, "auth" | "publicUrl" | "admin" | "usernameEmailDomain">;
}

/**
 * The one user store behind /auth/v1 and the phone-number API: accounts, passwords, sessions with
 * rotating refresh tokens, one-time codes, PKCE, TOTP factors, and the admin operations. Throws AuthError.
 */

/**
 * What every part of the auth service shares: the repository, the limiter, the token signer, the message
 * provider and the code key, plus the account rules each part uses (addresses, passwords, the user view,
 * the audit trail). Only this module's services extend it; nothing outside modules/auth sees it.
 */
export abstract class AuthCore {
  protected readonly repo: AuthRepository;
  protected readonly tokens: AccessTokens;
  protected readonly messages: MessageProvider;
  protected readonly limiter: RateLimiter;
  protected readonly secret: Buffer;
  protected readonly config: AuthCoreDeps["config"];
  /** Every scrypt goes through its bounded queue. */
  protected readonly hasher: PasswordHasher;

  constructor(deps: AuthCoreDeps) {
    this.repo = deps.repo;
    this.tokens = deps.tokens;
    this.messages = deps.messages;
    this.limiter = deps.limiter;
    this.secret = deps.hmacSecret;
    this.config = deps.config;
    this.hasher = deps.hasher;
  }

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

  /**
   * Whether this session must pass the account's second factor first: the account has a verified factor and the
   * session reached only aal1. A stolen password alone must not change how the account signs in (password, e-mail,
   * phone) nor reach what only an admin's second factor should (the service-role key).
   */
  protected async lacksSecondFactor(userId: string, session: Pick<SessionRow, "aal">): Promise<boolean> {
    if (session.aal === "aal2") return false;
    return (await this.repo.factorsOf([userId])).some((f) => f.status === "verified");
  }

  hashPassword(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  async view(user: UserRow): Promise<SupabaseUser> {
    return (await this.viewUntil(user)).view;
  }

  /** The view and until when it holds by itself: a pending phone change shows only until its code expires. */
  async viewUntil(user: UserRow): Promise<{ view: SupabaseUser; until: number }> {
    const [identities, factors] = await Promise.all([this.repo.identitiesOf([user.id]), this.repo.factorsOf([user.id])]);
    const pendingPhone = await this.repo.latestActiveTokenOfUser(user.id, ["phone_change"], new Date().toISOString());
    return {
      view: toSupabaseUser(user, identities, factors, pendingPhone ? { newPhone: pendingPhone.relates_to } : {}),
      until: pendingPhone ? Date.parse(pendingPhone.expires_at) : Number.POSITIVE_INFINITY,
    };
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

  protected otpHash(tokenHash: string): string {
    return hmacHex(this.secret, tokenHash);
  }

  /** A stable id for a phone nobody registered, so answers do not reveal who has an account. */
  decoyUserId(subject: string): string {
    const h = hmacHex(this.secret, `decoy:${subject}`);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((Number.parseInt(h[16] ?? "0", 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

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
        if (row.email) await this.addIdentity(repo, row, "email");
        if (row.phone) await this.addIdentity(repo, row, "phone");
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw input.email ? authErrors.userExists() : authErrors.phoneExists();
      throw error;
    }
    return row;
  }

  protected async addIdentity(repo: AuthRepository, user: UserRow, provider: "email" | "phone") {
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
  protected async syncProviders(repo: AuthRepository, user: UserRow): Promise<string> {
    const identities = await repo.identitiesOf([user.id]);
    const providers = [...new Set(identities.map((i) => i.provider))];
    const app = parseJson(user.app_metadata);
    const next = JSON.stringify({ ...app, provider: app.provider ?? providers[0] ?? "email", providers });
    return next;
  }

  async send(channel: "sms" | "whatsapp" | "email", to: string, body: string, purpose: string): Promise<string> {
    try {
      return (await this.messages.send({ channel, to, body, purpose })).id;
    } catch (error) {
      if (error instanceof MessageSendError) throw authErrors.smsSendFailed();
      throw error;
    }
  }

  protected link(type: string, tokenHash: string, redirectTo: string | undefined, origin: string): string {
    const url = new URL(`${this.config.publicUrl ?? origin}/auth/v1/verify`);
    url.searchParams.set("token", tokenHash);
    url.searchParams.set("type", type);
    if (redirectTo) url.searchParams.set("redirect_to", redirectTo);
    return url.toString();
  }

  /** Makes `email` the person's confirmed address: user, identity and providers together. */
  protected async changeEmail(user: UserRow, email: string, meta: RequestMeta) {
    const now = new Date().toISOString();
    try {
      await this.repo.transaction(async (repo) => {
        await repo.updateUser(user.id, { email, email_confirmed_at: now, updated_at: now });
        const updated = { ...user, email, email_confirmed_at: now };
        await repo.deleteIdentity(user.id, "email");
        await this.addIdentity(repo, updated, "email");
        await repo.updateUser(user.id, { app_metadata: await this.syncProviders(repo, updated) });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw authErrors.emailExists();
      throw error;
    }
    await this.audit(user.id, "user_modified", meta, { field: "email" });
  }

  /** The language texts to this person are written in: their stored choice, else the request's. */
  async languageOf(userId: string | null, meta: RequestMeta | null): Promise<Language> {
    const profile = userId ? await this.repo.findProfile(userId) : undefined;
    return chooseLanguage(profile?.language, meta?.language);
  }
}

export const objectOr = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
