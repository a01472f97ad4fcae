import { randomUUID } from "node:crypto";
import type { AccessTokenClaims } from "./access-tokens.ts";
import type { SessionRow, UserRow } from "./auth.repository.ts";
import { type Amr, AuthCore, type Caller, REFRESH_REUSE_GRACE_MS, type RequestMeta, type SessionResponse } from "./auth-core.ts";
import { AuthError, authErrors } from "./auth-errors.ts";
import { supabasePhone } from "./phone.ts";
import { randomToken, sha256Hex } from "./secrets.ts";

/**
 * Sessions: signing in (a session, its first refresh token, an access token), rotating refresh tokens with
 * GoTrue's reuse rules, checking an access token against its live session, and signing out.
 */
export class SessionsService extends AuthCore {
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
    return this.sessionResponse(fresh, session, refreshToken);
  }

  async sessionResponse(user: UserRow, session: SessionRow, refreshToken: string): Promise<SessionResponse> {
    const view = await this.view(user);
    const { token, expiresAt } = await this.tokens.issue({
      userId: user.id,
      email: user.email,
      phone: supabasePhone(user.phone),
      appMetadata: view.app_metadata,
      userMetadata: view.user_metadata,
      isAnonymous: view.is_anonymous,
      sessionId: session.id,
      aal: session.aal === "aal2" ? "aal2" : "aal1",
      amr: JSON.parse(session.amr) as Amr,
    });
    return {
      access_token: token,
      token_type: "bearer",
      expires_in: this.tokens.ttlSeconds,
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
    const idleDays = this.config.auth.sessionInactivityDays;
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
    return this.sessionResponse(user, session, next);
  }

  /** The signed-in person behind verified claims, or null when the user or the session is gone. */
  async callerOf(auth: { userId: string; sessionId: string; claims: AccessTokenClaims }): Promise<Caller | null> {
    const [user, session] = await Promise.all([this.repo.findUserById(auth.userId), this.repo.findSession(auth.sessionId)]);
    return user && session ? { claims: auth.claims, user, session } : null;
  }

  /** The uncached check behind the live-session cache (live-sessions.ts): the session exists and is not idle too long. */
  async isSessionActive(sessionId: string): Promise<boolean> {
    const row = await this.repo.liveSession(sessionId, this.config.auth.sessionInactivityDays);
    return row !== undefined && row.idleUntil > Date.now();
  }

  /** Checks a user access token: signature, expiry, live session, existing user. */
  async authenticate(token: string | null): Promise<Caller> {
    if (!token) throw authErrors.noAuthorization();
    let claims: AccessTokenClaims;
    try {
      claims = await this.tokens.verify(token);
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
}
