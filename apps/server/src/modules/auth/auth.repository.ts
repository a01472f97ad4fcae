import type { Insertable, Selectable, Updateable } from "kysely";
import type { DB } from "../../db/database.ts";
import type {
  FlowStateTable,
  IdentitiesTable,
  MfaFactorsTable,
  OneTimeTokensTable,
  ProfilesTable,
  SessionsTable,
  UsersTable,
} from "../../db/schema.ts";

export type UserRow = Selectable<UsersTable>;
/** What the database says about a session live-sessions.ts does not hold: its user, and until when it may stay idle. */
export interface LiveSessionRow {
  userId: string;
  /** Epoch ms after which the session has been idle too long (Infinity when inactivity never ends it). */
  idleUntil: number;
}
export type IdentityRow = Selectable<IdentitiesTable>;
export type FactorRow = Selectable<MfaFactorsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type OneTimeTokenRow = Selectable<OneTimeTokensTable>;
export type FlowStateRow = Selectable<FlowStateTable>;

/** The fields of a stored code that a write to it needs. */
type CodeOf = Pick<OneTimeTokenRow, "id" | "user_id" | "purpose">;

/**
 * The code's own user, said again beside its id (true of the row either way): the write watch reads whose code it
 * is from the statement, so the user views forget only that person's instead of everyone's.
 */
const ofUser =
  (token: CodeOf) =>
  <Q extends { where(column: "user_id", op: "is" | "=", value: string | null): Q }>(q: Q): Q =>
    token.user_id === null ? q.where("user_id", "is", null) : q.where("user_id", "=", token.user_id);

/**
 * Every query auth makes. Takes `db` or a transaction. The in-memory caches of sessions, user views and profiles
 * hear of each committed write from the write watch (db/write-watch.ts), which reads whose rows it wrote from the
 * statement itself: nothing here declares it.
 */
export class AuthRepository {
  readonly db: DB;

  constructor(db: DB) {
    this.db = db;
  }

  with(db: DB): AuthRepository {
    return new AuthRepository(db);
  }

  transaction<T>(work: (repo: AuthRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new AuthRepository(trx)));
  }

  // ── users ──
  findUserById(id: string) {
    return this.db.selectFrom("users").selectAll().where("id", "=", id).where("deleted_at", "is", null).executeTakeFirst();
  }
  findUserByEmail(email: string) {
    return this.db.selectFrom("users").selectAll().where("email", "=", email).where("deleted_at", "is", null).executeTakeFirst();
  }
  findUserByPhone(phone: string) {
    return this.db.selectFrom("users").selectAll().where("phone", "=", phone).where("deleted_at", "is", null).executeTakeFirst();
  }
  async insertUser(row: Insertable<UsersTable>) {
    await this.db.insertInto("users").values(row).execute();
  }
  async updateUser(id: string, patch: Updateable<UsersTable>) {
    await this.db.updateTable("users").set(patch).where("id", "=", id).execute();
  }
  async deleteUser(id: string) {
    await this.db.deleteFrom("users").where("id", "=", id).execute();
  }
  listUsers(offset: number, limit: number) {
    return this.db
      .selectFrom("users")
      .selectAll()
      .where("deleted_at", "is", null)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .offset(offset)
      .limit(limit)
      .execute();
  }
  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // ── identities and factors ──
  identitiesOf(userIds: string[]) {
    if (!userIds.length) return Promise.resolve([] as IdentityRow[]);
    return this.db.selectFrom("identities").selectAll().where("user_id", "in", userIds).orderBy("created_at").execute();
  }
  async insertIdentity(row: Insertable<IdentitiesTable>) {
    await this.db.insertInto("identities").values(row).execute();
  }
  async updateIdentity(userId: string, provider: string, patch: Updateable<IdentitiesTable>) {
    await this.db.updateTable("identities").set(patch).where("user_id", "=", userId).where("provider", "=", provider).execute();
  }
  async deleteIdentity(userId: string, provider: string) {
    await this.db.deleteFrom("identities").where("user_id", "=", userId).where("provider", "=", provider).execute();
  }
  factorsOf(userIds: string[]) {
    if (!userIds.length) return Promise.resolve([] as FactorRow[]);
    return this.db.selectFrom("mfa_factors").selectAll().where("user_id", "in", userIds).orderBy("created_at").execute();
  }
  findFactor(userId: string, id: string) {
    return this.db.selectFrom("mfa_factors").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
  }
  async insertFactor(row: Insertable<MfaFactorsTable>) {
    await this.db.insertInto("mfa_factors").values(row).execute();
  }
  async updateFactor(id: string, patch: Updateable<MfaFactorsTable>) {
    await this.db.updateTable("mfa_factors").set(patch).where("id", "=", id).execute();
  }
  async deleteFactor(id: string) {
    await this.db.deleteFrom("mfa_factors").where("id", "=", id).execute();
  }
  async deleteUnverifiedFactorsOf(userId: string) {
    await this.db.deleteFrom("mfa_factors").where("user_id", "=", userId).where("status", "=", "unverified").execute();
  }
  async insertChallenge(row: { id: string; factor_id: string; ip: string | null; created_at: string }) {
    await this.db
      .insertInto("mfa_challenges")
      .values({ ...row, verified_at: null })
      .execute();
  }
  findChallenge(id: string, factorId: string) {
    return this.db
      .selectFrom("mfa_challenges")
      .selectAll()
      .where("id", "=", id)
      .where("factor_id", "=", factorId)
      .executeTakeFirst();
  }
  /** True when this call verified it (a challenge is single use). */
  async markChallengeVerified(id: string, at: string): Promise<boolean> {
    const r = await this.db
      .updateTable("mfa_challenges")
      .set({ verified_at: at })
      .where("id", "=", id)
      .where("verified_at", "is", null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ── sessions and refresh tokens ──
  async insertSession(row: Insertable<SessionsTable>) {
    await this.db.insertInto("sessions").values(row).execute();
  }
  findSession(id: string) {
    return this.db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
  }
  /** A live session's user and idle deadline (`idleDays` 0: inactivity never ends it), for the live-session cache. */
  async liveSession(id: string, idleDays: number): Promise<LiveSessionRow | undefined> {
    const row = await this.db
      .selectFrom("sessions")
      .select(["user_id", "created_at", "refreshed_at"])
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) return undefined;
    const idleUntil =
      idleDays > 0 ? Date.parse(row.refreshed_at ?? row.created_at) + idleDays * 86_400_000 : Number.POSITIVE_INFINITY;
    return { userId: row.user_id, idleUntil };
  }
  async updateSession(id: string, patch: Updateable<SessionsTable>) {
    await this.db.updateTable("sessions").set(patch).where("id", "=", id).execute();
  }
  async deleteSession(id: string) {
    await this.db.deleteFrom("sessions").where("id", "=", id).execute();
  }
  /** Ends the user's sessions that have not passed a second factor. */
  async deleteAal1SessionsOf(userId: string) {
    await this.db.deleteFrom("sessions").where("user_id", "=", userId).where("aal", "!=", "aal2").execute();
  }
  /** Sessions that reached aal2 with a factor that is gone drop back to aal1. */
  async downgradeSessionsOfFactor(factorId: string, at: string) {
    await this.db
      .updateTable("sessions")
      .set({ aal: "aal1", factor_id: null, updated_at: at })
      .where("factor_id", "=", factorId)
      .execute();
  }
  async deleteSessionsOf(userId: string, exceptSessionId?: string) {
    let q = this.db.deleteFrom("sessions").where("user_id", "=", userId);
    if (exceptSessionId) q = q.where("id", "!=", exceptSessionId);
    await q.execute();
  }
  async insertRefreshToken(row: {
    token_hash: string;
    session_id: string;
    user_id: string;
    parent_id: number | null;
    created_at: string;
  }) {
    await this.db
      .insertInto("refresh_tokens")
      .values({ ...row, revoked: 0, revoked_at: null })
      .execute();
  }
  findRefreshToken(tokenHash: string) {
    return this.db.selectFrom("refresh_tokens").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  }
  /** The newest refresh token of a session: the one its holder should be using. */
  latestRefreshTokenOfSession(sessionId: string) {
    return this.db
      .selectFrom("refresh_tokens")
      .selectAll()
      .where("session_id", "=", sessionId)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  }
  /** Rotation: true when this call revoked it (so two racing refreshes cannot both rotate the same token silently). */
  async revokeRefreshToken(id: number, at: string): Promise<boolean> {
    const r = await this.db
      .updateTable("refresh_tokens")
      .set({ revoked: 1, revoked_at: at })
      .where("id", "=", id)
      .where("revoked", "=", 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  async revokeRefreshTokensOfSession(sessionId: string, at: string) {
    await this.db
      .updateTable("refresh_tokens")
      .set({ revoked: 1, revoked_at: at })
      .where("session_id", "=", sessionId)
      .where("revoked", "=", 0)
      .execute();
  }

  // ── one-time codes and tokens ──
  /** A new code replaces any unused one for the same purpose and address. */
  async insertOneTimeToken(row: Insertable<OneTimeTokensTable>) {
    await this.db
      .updateTable("one_time_tokens")
      .set({ used_at: row.created_at })
      .where("relates_to", "=", row.relates_to)
      .where("purpose", "=", row.purpose)
      .where("used_at", "is", null)
      .execute();
    await this.db.insertInto("one_time_tokens").values(row).execute();
  }
  /** Unused, unexpired one-time tokens of the given purposes, matched on one column. */
  #activeTokens(column: "relates_to" | "user_id" | "token_hash", value: string, purposes: string[], now: string) {
    return this.db
      .selectFrom("one_time_tokens")
      .selectAll()
      .where(column, "=", value)
      .where("purpose", "in", purposes)
      .where("used_at", "is", null)
      .where("expires_at", ">", now);
  }
  latestActiveToken(relatesTo: string, purposes: string[], now: string) {
    return this.#activeTokens("relates_to", relatesTo, purposes, now).orderBy("created_at", "desc").limit(1).executeTakeFirst();
  }
  /** The newest code of the given purposes, used or not: tells a code spent by wrong tries from a wrong code. */
  latestToken(relatesTo: string, purposes: string[]) {
    return this.db
      .selectFrom("one_time_tokens")
      .selectAll()
      .where("relates_to", "=", relatesTo)
      .where("purpose", "in", purposes)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
  }
  latestActiveTokenOfUser(userId: string, purposes: string[], now: string) {
    return this.#activeTokens("user_id", userId, purposes, now).orderBy("created_at", "desc").limit(1).executeTakeFirst();
  }
  activeTokenByHash(tokenHash: string, purposes: string[], now: string) {
    return this.#activeTokens("token_hash", tokenHash, purposes, now).executeTakeFirst();
  }
  /** Counts a wrong try; past the limit the code is spent (true: this try spent it). */
  async failTokenAttempt(token: CodeOf, maxAttempts: number, now: string): Promise<boolean> {
    const row = await this.db
      .updateTable("one_time_tokens")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", token.id)
      .$call(ofUser(token))
      .returning("attempts")
      .executeTakeFirst();
    if (row && row.attempts >= maxAttempts) {
      await this.db
        .updateTable("one_time_tokens")
        .set({ used_at: now })
        .where("id", "=", token.id)
        .$call(ofUser(token))
        .execute();
      return true;
    }
    return false;
  }
  /** Single use: true only for the call that consumed it. */
  async consumeToken(token: CodeOf, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable("one_time_tokens")
      .set({ used_at: now })
      .where("id", "=", token.id)
      .$call(ofUser(token))
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ── PKCE flow state ──
  async insertFlowState(row: Insertable<FlowStateTable>) {
    await this.db.insertInto("flow_state").values(row).execute();
  }
  latestOpenFlow(userId: string, relatesTo: string, now: string) {
    return this.db
      .selectFrom("flow_state")
      .selectAll()
      .where("user_id", "=", userId)
      .where("relates_to", "=", relatesTo)
      .where("auth_code_hash", "is", null)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
  }
  async setFlowCode(id: string, authCodeHash: string) {
    await this.db.updateTable("flow_state").set({ auth_code_hash: authCodeHash }).where("id", "=", id).execute();
  }
  findFlowByCode(authCodeHash: string) {
    return this.db.selectFrom("flow_state").selectAll().where("auth_code_hash", "=", authCodeHash).executeTakeFirst();
  }
  async consumeFlow(id: string, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable("flow_state")
      .set({ used_at: now })
      .where("id", "=", id)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ── audit and profiles ──
  async audit(entry: { userId: string | null; action: string; ip: string | null; payload?: Record<string, unknown> }) {
    await this.db
      .insertInto("audit_log")
      .values({
        user_id: entry.userId,
        action: entry.action,
        ip: entry.ip,
        payload: JSON.stringify(entry.payload ?? {}),
        created_at: new Date().toISOString(),
      })
      .execute();
  }
  auditOf(userId: string) {
    return this.db.selectFrom("audit_log").selectAll().where("user_id", "=", userId).orderBy("id").execute();
  }
  findProfile(userId: string) {
    return this.db.selectFrom("profiles").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }
  async upsertProfile(row: Insertable<ProfilesTable>, update: Updateable<ProfilesTable>) {
    await this.db
      .insertInto("profiles")
      .values(row)
      .onConflict((oc) => oc.column("user_id").doUpdateSet(update))
      .execute();
  }
}
