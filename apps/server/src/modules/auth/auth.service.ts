import { AdminService } from "./admin.service.ts";
import type { AuthCoreDeps, Caller, RequestMeta } from "./auth-core.ts";
import { AdminBootstrap } from "./bootstrap.ts";
import { CodesService } from "./codes.service.ts";
import { MfaService } from "./mfa.service.ts";
import { OperatorAccessService } from "./operator-access.service.ts";
import { SessionsService } from "./sessions.service.ts";
import { type PhoneChanger, UserAccountsService } from "./user-accounts.service.ts";

export type { Caller, OtpPurpose, RequestMeta, SessionResponse } from "./auth-core.ts";
export { OTP_MAX_ATTEMPTS, OTP_TTL_MS, REFRESH_REUSE_GRACE_MS, RESET_TOKEN_TTL_MS } from "./auth-core.ts";
export type AuthServiceDeps = AuthCoreDeps;

/**
 * The one user store behind /auth/v1 and the phone-number API, in parts of one job each: sessions, one-time
 * codes and links, accounts, MFA, admin and the start-up admin. Routes call these parts; other modules use
 * the few calls below (through AppDeps), never the parts' shared repository or limiter.
 */
export class AuthService {
  readonly sessions: SessionsService;
  readonly codes: CodesService;
  readonly accounts: UserAccountsService;
  readonly mfa: MfaService;
  readonly admin: AdminService;
  readonly operators: OperatorAccessService;
  readonly #bootstrap: AdminBootstrap;

  constructor(deps: AuthServiceDeps) {
    this.sessions = new SessionsService(deps);
    this.codes = new CodesService(deps, { sessions: this.sessions });
    this.accounts = new UserAccountsService(deps, { sessions: this.sessions, codes: this.codes });
    this.mfa = new MfaService(deps, { sessions: this.sessions });
    this.admin = new AdminService(deps, { codes: this.codes });
    this.operators = new OperatorAccessService(deps, { codes: this.codes, admin: this.admin, mfa: this.mfa });
    this.#bootstrap = new AdminBootstrap(deps);
  }

  // ── what other modules call ──

  ensureAdmin(admin: Parameters<AdminBootstrap["ensureAdmin"]>[0]) {
    return this.#bootstrap.ensureAdmin(admin);
  }
  findUser(userId: string) {
    return this.accounts.findUser(userId);
  }
  passwordMatches(userId: string, password: string) {
    return this.accounts.passwordMatches(userId, password);
  }
  requestPhoneChange(caller: PhoneChanger, phone: string, channel: "sms" | "whatsapp", meta: RequestMeta) {
    return this.accounts.requestPhoneChange(caller, phone, channel, meta);
  }
  confirmPhoneChange(caller: PhoneChanger, phone: string, code: string, meta: RequestMeta) {
    return this.accounts.confirmPhoneChange(caller, phone, code, meta);
  }
  deleteUser(id: string, meta: RequestMeta, by: "admin" | "self") {
    return this.accounts.deleteUser(id, meta, by);
  }
  /** The console's team and people pages: invite (e-mail or phone), change app_metadata, block, end sessions. */
  inviteOperator(input: Parameters<OperatorAccessService["invite"]>[0], meta: Parameters<OperatorAccessService["invite"]>[1]) {
    return this.operators.invite(input, meta);
  }
  adminUpdateUser(id: string, input: Record<string, unknown>, meta: RequestMeta) {
    return this.admin.adminUpdateUser(id, input, meta);
  }
  endSessionsOf(id: string) {
    return this.admin.endSessionsOf(id);
  }
  needsSecondFactor(auth: { userId: string; sessionId: string }) {
    return this.mfa.needsSecondFactor(auth);
  }
  callerOf(auth: Parameters<SessionsService["callerOf"]>[0]): Promise<Caller | null> {
    return this.sessions.callerOf(auth);
  }
  isSessionActive(sessionId: string) {
    return this.sessions.isSessionActive(sessionId);
  }
  /** The auth audit trail of one person (tests and the console read it). */
  auditOf(userId: string) {
    return this.admin.auditOf(userId);
  }
}
