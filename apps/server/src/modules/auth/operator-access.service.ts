import { normalizeDigits, type OperatorRole } from "@hikaya/contracts";
import { AppError } from "../../errors.ts";
import type { AdminService } from "./admin.service.ts";
import type { OneTimeTokenRow, UserRow } from "./auth.repository.ts";
import { AuthCore, type AuthCoreDeps, INVITE_TTL_MS, type RequestMeta } from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import type { CodesService } from "./codes.service.ts";
import type { MfaService } from "./mfa.service.ts";
import { gotruePhone, normalizePhone, phoneWithCountry } from "./phone.ts";
import { authText } from "./texts.ts";
import { parseJson } from "./user-view.ts";

type Meta = RequestMeta & { origin: string };
/** Who a console link is for: an e-mail, or a phone (E.164, or national with the country chosen beside it). */
export type OperatorContact = { email?: string; phone?: string; country?: string };
type Contact = { channel: "email"; to: string } | { channel: "sms"; to: string };

const isOperator = (user: UserRow) => {
  const role = parseJson(user.app_metadata).role;
  return role === "admin" || role === "facilitator";
};

/**
 * How people get into the console: the team's invitations, the invitee's first password, and an operator's own
 * password reset. Every link ends on a console page (/admin/join, /admin/reset-password), never on the family app's
 * login, whose session is not the console's. Codes are the invitation's ("invite", a day) and recovery's (5 minutes).
 */
export class OperatorAccessService extends AuthCore {
  readonly #codes: CodesService;
  readonly #admin: AdminService;
  readonly #mfa: MfaService;

  constructor(deps: AuthCoreDeps, parts: { codes: CodesService; admin: AdminService; mfa: MfaService }) {
    super(deps);
    this.#codes = parts.codes;
    this.#admin = parts.admin;
    this.#mfa = parts.mfa;
  }

  /** The product's phone rule (per country, as the family app's login), not /auth/v1's looser one. */
  #contact(input: OperatorContact): Contact {
    if (input.email) return { channel: "email", to: this.normalizeEmail(input.email) };
    const raw = normalizeDigits(input.phone ?? "").replace(/[\s()-]/g, "");
    const phone = input.country ? phoneWithCountry(input.country, raw) : raw.startsWith("+") ? normalizePhone(raw) : null;
    if (!phone) throw new AppError("invalid_phone", "Give the phone number with its country, or in full with +");
    return { channel: "sms", to: phone };
  }

  #find(contact: Contact) {
    return contact.channel === "email" ? this.repo.findUserByEmail(contact.to) : this.repo.findUserByPhone(contact.to);
  }

  #link(page: "join" | "reset-password", contact: Contact, code: string, origin: string) {
    const params = new URLSearchParams({ [contact.channel === "email" ? "email" : "phone"]: contact.to, code });
    return `${origin}/admin/${page}?${params}`;
  }

  /**
   * The team page's invitation. A new person is created unconfirmed with the role and gets a code and a link to
   * /admin/join. Someone who already has a family account keeps it: the role is added (which ends their sessions, so
   * their next token carries it) and they are told through the channel they signed up with; with a password they
   * sign in with it, without one (a phone-code account) they get the join link to choose one.
   */
  async invite(input: OperatorContact & { role: OperatorRole }, meta: Meta): Promise<UserRow> {
    const contact = this.#contact(input);
    let user = await this.#find(contact);
    if (user && isOperator(user)) throw contact.channel === "email" ? authErrors.emailExists() : authErrors.phoneExists();
    if (user) await this.#admin.adminUpdateUser(user.id, { app_metadata: { role: input.role } }, meta);
    else
      user = await this.createUser(
        contact.channel === "email"
          ? { email: contact.to, appMetadata: { role: input.role }, userMetadata: {}, emailConfirmed: false }
          : { phone: contact.to, appMetadata: { role: input.role }, userMetadata: {}, phoneConfirmed: false },
      );
    const language = await this.languageOf(user.id, meta);
    const confirmed = contact.channel === "email" ? user.email_confirmed_at : user.phone_confirmed_at;
    if (user.encrypted_password && confirmed) {
      const link = `${meta.origin}/admin/login`;
      await this.send(contact.channel, contact.to, authText("operatorAdded", language, { code: "", link }), "invite");
      await this.audit(user.id, "user_role_granted", meta, { by: "admin", role: input.role, channel: contact.channel });
    } else {
      const { code } = await this.#codes.issueCode("invite", contact.to, user.id, undefined, INVITE_TTL_MS);
      const link = this.#link("join", contact, code, meta.origin);
      await this.send(contact.channel, contact.to, authText("inviteLink", language, { code, link }), "invite");
      await this.audit(user.id, "user_invited", meta, { by: "admin", channel: contact.channel });
    }
    return (await this.repo.findUserById(user.id)) ?? user;
  }

  /** The console's "forgot password": answers the same whoever asks; only an operator's account gets a link. */
  async recover(input: OperatorContact, meta: Meta): Promise<void> {
    const contact = this.#contact(input);
    await this.limiter.hit("recoverPerIp", meta.ip);
    await this.limiter.hit(
      "otpSendPerRecipient",
      contact.to,
      contact.channel === "email" ? authErrors.overEmailLimit : authErrors.overSmsLimit,
    );
    const user = await this.#find(contact);
    if (!user || !isOperator(user)) {
      await this.audit(null, "operator_recovery_requested", meta, { known: false });
      return;
    }
    const { code } = await this.#codes.issueCode("recovery", contact.to, user.id);
    const link = this.#link("reset-password", contact, code, meta.origin);
    const language = await this.languageOf(user.id, meta);
    await this.send(contact.channel, contact.to, authText("resetLink", language, { code, link }), "recovery");
    await this.audit(user.id, "user_recovery_requested", meta, { console: true });
  }

  /**
   * The invitee's first password (/admin/join) or an operator's new one (/admin/reset-password), with the code the
   * link carried. The password is checked before the code is spent, so a weak one does not waste it; a used, expired
   * or wrong code changes nothing. The code proves the address, so it is confirmed; a reset ends every session.
   */
  async setPassword(
    kind: "invite" | "recovery",
    input: { email?: string; phone?: string; code: string; password: string; authenticatorCode?: string },
    meta: RequestMeta,
  ): Promise<void> {
    const password = this.checkPassword(input.password);
    await this.limiter.hit("verifyPerIp", meta.ip);
    const invalid = () =>
      kind === "invite"
        ? new AppError("invite_invalid", "This invitation code was already used or has expired")
        : new AppError("otp_expired", "This reset link is invalid or has expired");
    let contact: Contact;
    try {
      contact = input.email
        ? { channel: "email", to: this.normalizeEmail(input.email) }
        : { channel: "sms", to: gotruePhone(normalizeDigits(input.phone ?? "")) ?? "" };
    } catch {
      throw invalid();
    }
    if (!contact.to) throw invalid();
    await this.limiter.hit("verifyPerAccount", contact.to);
    let row: OneTimeTokenRow;
    try {
      // One MFA rule: a code sent by e-mail or SMS alone sets no password on an account with a verified factor.
      row = await this.#codes.consumeCode([kind], contact.to, input.code, async (matched) => {
        if (matched.user_id) await this.#mfa.requireCodeIfFactor(matched.user_id, input.authenticatorCode, meta);
      });
    } catch (error) {
      if (error instanceof AuthError && error.appCode === "too_many_attempts") throw error.toAppError();
      if (error instanceof AuthError) throw invalid();
      throw error;
    }
    const user = row.user_id ? await this.repo.findUserById(row.user_id) : undefined;
    if (!user || (contact.channel === "email" ? user.email : user.phone) !== contact.to) throw invalid();
    const now = new Date().toISOString();
    const confirm =
      contact.channel === "email"
        ? { email_confirmed_at: user.email_confirmed_at ?? now }
        : { phone_confirmed_at: user.phone_confirmed_at ?? now };
    await this.repo.updateUser(user.id, { encrypted_password: await this.hashPassword(password), ...confirm, updated_at: now });
    // Whoever held the old password is signed out everywhere.
    if (kind === "recovery") await this.repo.deleteSessionsOf(user.id);
    await this.audit(user.id, kind === "invite" ? "user_invite_accepted" : "user_recovery_password_reset", meta, {
      channel: contact.channel,
    });
  }
}
