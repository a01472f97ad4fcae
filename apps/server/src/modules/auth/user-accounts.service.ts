import { isValidUsername } from "@hikaya/contracts";
import { isForeignKeyViolation } from "../../db/dialect.ts";
import type { UserRow } from "./auth.repository.ts";
import { AuthCore, type AuthCoreDeps, type Caller, type RequestMeta } from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import type { CodesService } from "./codes.service.ts";
import { gotruePhone } from "./phone.ts";
import type { SessionsService } from "./sessions.service.ts";
import { authText } from "./texts.ts";
import { parseJson, roleChanged } from "./user-view.ts";

/** Who asks to change their login phone: the person and the session their request came with. */
export interface PhoneChanger {
  userId: string;
  sessionId: string;
}

/**
 * Accounts: sign-up, password sign-in, a person's changes to their own account (PUT /user and the calls
 * modules/account makes), and deleting an account.
 */
export class UserAccountsService extends AuthCore {
  readonly #sessions: SessionsService;
  readonly #codes: CodesService;

  constructor(deps: AuthCoreDeps, parts: { sessions: SessionsService; codes: CodesService }) {
    super(deps);
    this.#sessions = parts.sessions;
    this.#codes = parts.codes;
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
    const domain = `@${this.config.usernameEmailDomain}`;
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
    return this.#sessions.startSession(user, email ? "password" : "password", meta);
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
      await this.hasher.burn(password);
      await this.audit(user?.id ?? null, "login_failed", meta, { reason: "unknown_account" });
      throw authErrors.invalidCredentials();
    }
    if (!(await this.hasher.verify(password, user.encrypted_password))) {
      await this.audit(user.id, "login_failed", meta, { reason: "wrong_password" });
      throw authErrors.invalidCredentials();
    }
    return this.#sessions.startSession(user, "password", meta);
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
    const changesPhone = typeof input.phone === "string" && input.phone !== "" && this.normalizePhone(input.phone) !== user.phone;
    if ((changesPassword || changesEmail || changesPhone) && (await this.lacksSecondFactor(user.id, caller.session)))
      throw changesPhone && !changesPassword && !changesEmail
        ? authErrors.aal2ToUpdatePhone()
        : authErrors.aal2ToUpdateCredentials();
    if (input.nonce !== undefined && input.nonce !== null && input.nonce !== "") {
      await this.#codes.consumeCode(["reauthentication"], user.id, input.nonce);
    }
    if (input.password !== undefined && input.password !== null) {
      const password = this.checkPassword(input.password);
      if (await this.hasher.verify(password, user.encrypted_password))
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
      const merged = JSON.stringify({ ...parseJson(user.app_metadata), ...(input.app_metadata as Record<string, unknown>) });
      await this.repo.transaction(async (repo) => {
        await repo.updateUser(user.id, { app_metadata: merged, updated_at: now });
        // An admin changing their own role: their tokens carry the old one, so every session ends, this one too.
        if (roleChanged(user.app_metadata, merged)) await repo.deleteSessionsOf(user.id);
      });
    }
    if (typeof input.email === "string" && input.email !== "") {
      const email = this.normalizeEmail(input.email);
      if (email !== user.email) {
        if (await this.repo.findUserByEmail(email)) throw authErrors.emailExists();
        // No mail is sent from here (usernames are e-mail-shaped, not mailboxes), so a change applies at once.
        await this.changeEmail(user, email, meta);
      }
    }
    if (typeof input.phone === "string" && input.phone !== "") {
      const phone = this.normalizePhone(input.phone);
      if (phone !== user.phone) {
        if (await this.repo.findUserByPhone(phone)) throw authErrors.phoneExists();
        const channel = input.channel === "whatsapp" ? "whatsapp" : "sms";
        await this.limiter.hit("otpSendPerRecipient", phone, authErrors.overSmsLimit);
        const { code } = await this.#codes.issueCode("phone_change", phone, user.id);
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

  async findUser(userId: string): Promise<UserRow | undefined> {
    return this.repo.findUserById(userId);
  }

  /** Whether `password` is the person's current password. */
  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const user = await this.repo.findUserById(userId);
    return Boolean(user?.encrypted_password) && (await this.hasher.verify(password, user?.encrypted_password ?? null));
  }

  /**
   * As PUT /user: with a verified factor, only a session that passed it may change the login phone; a stolen password
   * alone must not move the account to the thief's number. The session is the request's, read live (a token's aal
   * claim is as old as the token).
   */
  async #requireSecondFactor(caller: PhoneChanger) {
    const session = await this.repo.findSession(caller.sessionId);
    if (!session || session.user_id !== caller.userId || (await this.lacksSecondFactor(caller.userId, session)))
      throw authErrors.aal2ToChangePhone();
  }

  /** Sends a code to a new login phone. Nothing changes until confirmPhoneChange gets that code. */
  async requestPhoneChange(caller: PhoneChanger, phone: string, channel: "sms" | "whatsapp", meta: RequestMeta) {
    const { userId } = caller;
    await this.#requireSecondFactor(caller);
    if (await this.repo.findUserByPhone(phone))
      throw new AuthError(422, "phone_exists", "This phone number belongs to another account", { appCode: "phone_in_use" });
    await this.limiter.hit("otpSendPerIp", meta.ip);
    await this.limiter.hit("otpSendPerRecipient", phone, authErrors.overSmsLimit);
    const { code } = await this.#codes.issueCode("phone_change", phone, userId);
    const language = await this.languageOf(userId, meta);
    await this.send(channel, phone, authText("phoneChangeCode", language, { code }), "phone_change");
    await this.audit(userId, "user_modified", meta, { field: "phone", pending: true });
  }

  /** The code sent to the new number makes it the login phone (user, identity and providers together). */
  async confirmPhoneChange(caller: PhoneChanger, phone: string, code: string, meta: RequestMeta) {
    const { userId } = caller;
    await this.#requireSecondFactor(caller);
    await this.limiter.hit("verifyPerAccount", userId);
    const row = await this.#codes.consumeCode(["phone_change"], phone, code);
    const user = await this.repo.findUserById(userId);
    if (!user || row.user_id !== userId) throw authErrors.otpInvalid();
    await this.#codes.applyVerification(user, row, meta);
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
}
