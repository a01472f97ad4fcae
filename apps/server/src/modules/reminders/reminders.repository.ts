import type { Insertable, Kysely, Selectable, Transaction } from "kysely";
import type { DB } from "../../db/database.ts";
import { type DialectName, supportsSkipLocked } from "../../db/dialect.ts";
import type { Database, ReminderJobsTable, ReminderSettingsTable } from "../../db/schema.ts";

/** Every query of reminders and push subscriptions. Private to the module: other modules call its services. */
type Db = DB | Kysely<Database> | Transaction<Database>;
export type ReminderJobRow = Selectable<ReminderJobsTable>;
export type ReminderSettingsRow = Selectable<ReminderSettingsTable>;

export async function findSettings(db: Db): Promise<ReminderSettingsRow | undefined> {
  return db.selectFrom("reminder_settings").selectAll().where("id", "=", 1).executeTakeFirst();
}

/**
 * Saves the rules as save number `version + 1`, only while the stored ones are still save number `version` (0
 * before any save): the rules as this statement wrote them (`returning`), undefined when another save came first.
 */
export async function saveSettings(
  db: Db,
  row: Omit<ReminderSettingsRow, "id" | "version">,
  version: number | undefined,
): Promise<ReminderSettingsRow | undefined> {
  return db
    .insertInto("reminder_settings")
    .values({ id: 1, ...row, version: 1 })
    .onConflict((oc) => {
      const update = oc.column("id").doUpdateSet((eb) => ({ ...row, version: eb("reminder_settings.version", "+", 1) }));
      return version === undefined ? update : update.where("reminder_settings.version", "=", version);
    })
    .returningAll()
    .executeTakeFirst();
}

/**
 * People who agreed to reminders and still have an account that is not blocked at `now`, with where they are in
 * the program.
 */
export async function listConsentingPeople(db: Db, now: string) {
  return db
    .selectFrom("profiles")
    .innerJoin("users", "users.id", "profiles.user_id")
    .select((eb) => [
      "users.id as userId",
      "users.created_at as joinedAt",
      eb
        .selectFrom("progress")
        .select("progress.story_position")
        .whereRef("progress.user_id", "=", "users.id")
        .orderBy("progress.story_position", "desc")
        .limit(1)
        .as("lastPosition"),
      eb
        .selectFrom("progress")
        .select("progress.watched_at")
        .whereRef("progress.user_id", "=", "users.id")
        .orderBy("progress.story_position", "desc")
        .limit(1)
        .as("lastWatchedAt"),
    ])
    .where("profiles.agree_to_reminder", "=", 1)
    .where("users.deleted_at", "is", null)
    .where((eb) => eb.or([eb("users.banned_until", "is", null), eb("users.banned_until", "<=", now)]))
    .execute();
}

/** One person as a reminder needs them: consent, language, phone, the furthest story watched. */
export async function findRecipient(db: Db, userId: string) {
  return db
    .selectFrom("users")
    .innerJoin("profiles", "profiles.user_id", "users.id")
    .select((eb) => [
      "users.id",
      "users.phone",
      "users.deleted_at",
      "users.banned_until",
      "users.created_at as joinedAt",
      "profiles.name",
      "profiles.phone_number",
      "profiles.country_code",
      "profiles.agree_to_reminder",
      "profiles.whatsapp_opt_in",
      "profiles.language",
      "profiles.time_zone",
      eb
        .selectFrom("progress")
        .select((e) => e.fn.max("progress.story_position").as("p"))
        .whereRef("progress.user_id", "=", "users.id")
        .as("lastPosition"),
      eb
        .selectFrom("progress")
        .select("progress.watched_at")
        .whereRef("progress.user_id", "=", "users.id")
        .orderBy("progress.story_position", "desc")
        .limit(1)
        .as("lastWatchedAt"),
    ])
    .where("users.id", "=", userId)
    .executeTakeFirst();
}

/** The published story at `position`: a draft is not there for families, and its link answers 404. */
export async function findStoryByPosition(db: Db, position: number) {
  return db
    .selectFrom("stories")
    .select(["id", "position", "title_en", "title_ar"])
    .where("position", "=", position)
    .where("published", "=", 1)
    .executeTakeFirst();
}

/** A story a reminder may name: published (it may have been unpublished since the job was planned). */
export async function findPublishedStory(db: Db, id: string) {
  return db
    .selectFrom("stories")
    .select(["id", "position", "title_en", "title_ar"])
    .where("id", "=", id)
    .where("published", "=", 1)
    .executeTakeFirst();
}

export async function latestJobFor(db: Db, userId: string, storyId: string): Promise<ReminderJobRow | undefined> {
  return db
    .selectFrom("reminder_jobs")
    .selectAll()
    .where("user_id", "=", userId)
    .where("story_id", "=", storyId)
    .orderBy("sequence", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** When the reminder before this one (same person and story) was sent; null when it was not. */
export async function sentAtOf(db: Db, userId: string, storyId: string, sequence: number): Promise<string | null> {
  const row = await db
    .selectFrom("reminder_jobs")
    .select("sent_at")
    .where("user_id", "=", userId)
    .where("story_id", "=", storyId)
    .where("sequence", "=", sequence)
    .where("status", "=", "sent")
    .executeTakeFirst();
  return row?.sent_at ?? null;
}

/** Creates the job unless one with the same idempotency key exists (another replica planned it first). */
export async function insertJob(db: Db, row: Insertable<ReminderJobsTable>): Promise<void> {
  await db
    .insertInto("reminder_jobs")
    .values(row)
    .onConflict((oc) => oc.column("idempotency_key").doNothing())
    .execute();
}

/**
 * Claims up to `limit` jobs that are due (or whose claim went stale: a replica died mid-send) for one
 * worker. On PostgreSQL, `FOR UPDATE SKIP LOCKED` lets replicas claim disjoint rows at the same moment;
 * on SQLite the one writer makes the transaction exclusive. Returns the rows now marked `sending`.
 */
export async function claimDueJobs(
  db: DB,
  dialect: DialectName,
  options: { now: string; staleBefore: string; worker: string; limit: number },
): Promise<ReminderJobRow[]> {
  return db.transaction().execute(async (trx) => {
    const ids = (
      await trx
        .selectFrom("reminder_jobs")
        .select("id")
        .where((eb) =>
          eb.or([
            eb.and([eb("status", "=", "due"), eb("next_try_at", "<=", options.now)]),
            eb.and([eb("status", "=", "sending"), eb("claimed_at", "<", options.staleBefore)]),
          ]),
        )
        .orderBy("next_try_at")
        .orderBy("id")
        .limit(options.limit)
        .$if(supportsSkipLocked(dialect), (qb) => qb.forUpdate().skipLocked())
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) return [];
    return trx
      .updateTable("reminder_jobs")
      .set({ status: "sending", claimed_by: options.worker, claimed_at: options.now, updated_at: options.now })
      .where("id", "in", ids)
      .returningAll()
      .execute();
  });
}

/** Writes a claimed job's outcome, only while this worker still holds the claim. */
export async function finishJob(
  db: Db,
  id: string,
  worker: string,
  values: Partial<
    Pick<ReminderJobRow, "status" | "channel" | "attempts" | "next_try_at" | "sent_at" | "outbox_id" | "last_error">
  > & {
    updated_at: string;
  },
): Promise<void> {
  await db
    .updateTable("reminder_jobs")
    .set({ ...values, claimed_by: null, claimed_at: null })
    .where("id", "=", id)
    .where("claimed_by", "=", worker)
    .execute();
}

export async function lastSentAt(db: Db, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom("reminder_jobs")
    .select((eb) => eb.fn.max("sent_at").as("sentAt"))
    .where("user_id", "=", userId)
    .where("status", "=", "sent")
    .executeTakeFirst();
  return (row?.sentAt as string | null | undefined) ?? null;
}

/** Stops every waiting job of a person (they said no). */
export async function stopPendingJobs(db: Db, userId: string, now: string): Promise<void> {
  await db
    .updateTable("reminder_jobs")
    .set({ status: "stopped", updated_at: now })
    .where("user_id", "=", userId)
    .where("status", "=", "due")
    .execute();
}

export async function listJobs(db: Db, options: { status?: string; before?: { createdAt: string; id: string }; limit: number }) {
  let query = db
    .selectFrom("reminder_jobs")
    .leftJoin("profiles", "profiles.user_id", "reminder_jobs.user_id")
    .leftJoin("stories", "stories.id", "reminder_jobs.story_id")
    .selectAll("reminder_jobs")
    .select(["profiles.name as name", "stories.title_en as storyTitle"]);
  if (options.status) query = query.where("reminder_jobs.status", "=", options.status);
  const before = options.before;
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb("reminder_jobs.created_at", "<", before.createdAt),
        eb.and([eb("reminder_jobs.created_at", "=", before.createdAt), eb("reminder_jobs.id", "<", before.id)]),
      ]),
    );
  return query.orderBy("reminder_jobs.created_at", "desc").orderBy("reminder_jobs.id", "desc").limit(options.limit).execute();
}

export async function countJobsByStatus(db: Db): Promise<{ status: string; count: number }[]> {
  const rows = await db
    .selectFrom("reminder_jobs")
    .select((eb) => ["status", eb.fn.countAll().as("count")])
    .groupBy("status")
    .execute();
  return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
}

// ── Stop ────────────────────────────────────────────────────────────────────────────────────────────

export async function findUserIdByPhone(db: Db, e164: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("phone", "=", e164)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return row?.id;
}

/** Records a stop link's use; false when it was used before. */
export async function useStopToken(db: Db, tokenId: string, userId: string, now: string): Promise<boolean> {
  const result = await db
    .insertInto("reminder_stop_uses")
    .values({ token_id: tokenId, user_id: userId, used_at: now })
    .onConflict((oc) => oc.column("token_id").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Records a provider message id as handled; false when it was handled before (a retry or a replay).
 * Inside the transaction that acts on the message, so a failure leaves the id free for the provider's retry.
 */
export async function recordInboundMessage(db: Db, messageSid: string, now: string): Promise<boolean> {
  const result = await db
    .insertInto("reminder_inbound_messages")
    .values({ message_sid: messageSid, received_at: now })
    .onConflict((oc) => oc.column("message_sid").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function turnOffReminders(db: Db, userId: string, via: string, now: string): Promise<void> {
  await db
    .updateTable("profiles")
    .set({ agree_to_reminder: 0, agree_to_reminder_at: now, reminders_stopped_via: via, updated_at: now })
    .where("user_id", "=", userId)
    .execute();
}

export async function findLanguage(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom("profiles").select("language").where("user_id", "=", userId).executeTakeFirst();
  return row?.language ?? null;
}

// ── Push subscriptions ──────────────────────────────────────────────────────────────────────────────

export type PushAudience = "family" | "operator";

/**
 * Saves a subscription, or refreshes the keys (and audience, language) of one the same person registered before;
 * false (nothing changed) when the endpoint belongs to another account. One statement, so two accounts racing for an
 * endpoint cannot both win.
 */
export async function savePushSubscription(
  db: Db,
  row: {
    endpoint: string;
    user_id: string;
    p256dh: string;
    auth: string;
    created_at: string;
    audience: PushAudience;
    language: string | null;
  },
): Promise<boolean> {
  const result = await db
    .insertInto("push_subscriptions")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("endpoint")
        .doUpdateSet({ p256dh: row.p256dh, auth: row.auth, audience: row.audience, language: row.language })
        .where("push_subscriptions.user_id", "=", row.user_id),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function listPushSubscriptions(db: Db, userId: string, audience: PushAudience) {
  return db.selectFrom("push_subscriptions").selectAll().where("user_id", "=", userId).where("audience", "=", audience).execute();
}

/**
 * Accounts with an operator subscription that still hold a console role and are not blocked at `now` (the LIKE
 * narrows to accounts naming a role; the caller parses app_metadata to be sure), the most recently subscribed first.
 * `among`: only these accounts.
 */
export async function listOperatorsWithPush(db: Db, options: { among?: readonly string[]; limit: number; now: string }) {
  const { among, limit, now } = options;
  if (among?.length === 0) return [];
  return db
    .selectFrom("push_subscriptions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select(["u.id", "u.app_metadata", (eb) => eb.fn.max("s.created_at").as("latest")])
    .where("s.audience", "=", "operator")
    .where("u.deleted_at", "is", null)
    .where((eb) => eb.or([eb("u.banned_until", "is", null), eb("u.banned_until", "<=", now)]))
    .where((eb) =>
      eb.or([eb("u.app_metadata", "like", '%"role":"admin"%'), eb("u.app_metadata", "like", '%"role":"facilitator"%')]),
    )
    .$if(among !== undefined, (q) => q.where("u.id", "in", among as string[]))
    .groupBy(["u.id", "u.app_metadata"])
    .orderBy("latest", "desc")
    .orderBy("u.id")
    .limit(limit)
    .execute();
}

export async function deletePushSubscriptions(db: Db, userId: string, audience: PushAudience, endpoint?: string) {
  let query = db.deleteFrom("push_subscriptions").where("user_id", "=", userId).where("audience", "=", audience);
  if (endpoint) query = query.where("endpoint", "=", endpoint);
  await query.execute();
}

export async function deletePushSubscriptionByEndpoint(db: Db, endpoint: string) {
  await db.deleteFrom("push_subscriptions").where("endpoint", "=", endpoint).execute();
}
