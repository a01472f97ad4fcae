import type { UserRow } from "./auth.repository.ts";
import {
  AuthCore,
  type AuthCoreDeps,
  INVITE_TTL_MS,
  LINK_TYPES,
  OTP_TTL_MS,
  type OtpPurpose,
  objectOr,
  type RequestMeta,
} from "./auth-core.ts";
import { authErrors } from "./auth-errors.ts";
import type { CodesService } from "./codes.service.ts";
import { authText } from "./texts.ts";
import { parseJson, roleChanged, type SupabaseFactor, toSupabaseFactor } from "./user-view.ts";

/** The admin API (service-role key or an admin person): users, invitations, generated links, factors. */
export class AdminService extends AuthCore {
  readonly #codes: CodesService;

  constructor(deps: AuthCoreDeps, parts: { codes: CodesService }) {
    super(deps);
    this.#codes = parts.codes;
  }

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
    const changesRole = typeof patch.app_metadata === "string" && roleChanged(user.app_metadata, patch.app_metadata);
    await this.repo.transaction(async (repo) => {
      await repo.updateUser(id, patch);
      // Ended in the same transaction, announced to every replica once it commits (before this answers).
      if (changesRole) await repo.deleteSessionsOf(id);
      const updated = { ...user, ...patch } as UserRow;
      if (patch.email && user.email !== patch.email) {
        await repo.deleteIdentity(id, "email");
        await this.addIdentity(repo, updated, "email");
      }
      if (patch.phone && user.phone !== patch.phone) {
        await repo.deleteIdentity(id, "phone");
        await this.addIdentity(repo, updated, "phone");
      }
      if (patch.email || patch.phone) await repo.updateUser(id, { app_metadata: await this.syncProviders(repo, updated) });
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

  /** Ends every session of a person: their access tokens are refused from the next request on. */
  async endSessionsOf(id: string) {
    await this.repo.deleteSessionsOf(id);
  }

  /**
   * POST /invite: creates the person (unconfirmed) and sends an invitation through the message provider. Answers
   * with when it was sent (GoTrue's invited_at).
   */
  async invite(
    input: Record<string, unknown>,
    meta: RequestMeta & { origin: string; redirectTo?: string },
  ): Promise<UserRow & { invitedAt: string }> {
    const invitedAt = new Date().toISOString();
    const email = this.normalizeEmail(input.email);
    const user = await this.#invitee(email, input.data);
    const { code, tokenHash } = await this.#codes.issueCode("invite", email, user.id, undefined, INVITE_TTL_MS);
    const link = this.link("invite", tokenHash, meta.redirectTo, meta.origin);
    await this.send("email", email, authText("inviteLink", await this.languageOf(user.id, meta), { code, link }), "invite");
    await this.audit(user.id, "user_invited", meta, { by: "admin" });
    return { ...user, invitedAt };
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
    const { code, tokenHash } = await this.#codes.issueCode(purpose, relatesTo, user.id, undefined, ttl);
    // As GoTrue: without a redirect the site's own address, and the link carries the same one the answer names.
    const redirect = redirectTo ?? this.config.publicUrl ?? meta.origin;
    const linkType = purpose === "email_change" ? "email_change" : type;
    await this.audit(user.id, "generate_link", meta, { type });
    return {
      ...(await this.view((await this.repo.findUserById(user.id)) ?? user)),
      action_link: this.link(linkType, tokenHash, redirect, meta.origin),
      email_otp: code,
      hashed_token: tokenHash,
      redirect_to: redirect,
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
}

/** Supabase's ban_duration: "none" or a Go-style duration ("24h", "90m", "876000h"). */
function banUntil(duration: string): string | null {
  if (duration === "none") return null;
  const match = /^(\d+(?:\.\d+)?)(h|m|s|ms)$/.exec(duration);
  if (!match) throw authErrors.validation("invalid format for ban duration");
  const ms = Number(match[1]) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[match[2] as "h" | "m" | "s" | "ms"];
  return new Date(Date.now() + ms).toISOString();
}
