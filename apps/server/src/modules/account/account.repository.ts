import type { Kysely, Selectable } from "kysely";
import type { Database, PhoneChangesTable } from "../../db/schema.ts";

type Db = Kysely<Database>;

export type PhoneChangeRow = Selectable<PhoneChangesTable>;

export async function findConsent(db: Db, userId: string) {
  return db
    .selectFrom("profiles")
    .select([
      "phone_number",
      "country_code",
      "agree_to_reminder",
      "agree_to_reminder_at",
      "reminders_stopped_via",
      "whatsapp_opt_in",
      "whatsapp_opt_in_at",
      "language",
      "viewing_mode",
    ])
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

/** Writes the given answers (each with the time it was given), creating the profile row if needed. */
export async function saveConsent(
  db: Db,
  userId: string,
  values: Partial<{
    agree_to_reminder: number;
    agree_to_reminder_at: string;
    reminders_stopped_via: string | null;
    whatsapp_opt_in: number;
    whatsapp_opt_in_at: string;
    language: string;
    viewing_mode: string;
    phone_number: string;
    country_code: string;
  }>,
) {
  const now = new Date().toISOString();
  await db
    .insertInto("profiles")
    .values({ user_id: userId, from_landing_page: 0, agree_to_reminder: 1, ...values, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ ...values, updated_at: now }))
    .execute();
}

export async function findPhoneChange(db: Db, userId: string, now: string): Promise<PhoneChangeRow | undefined> {
  return db
    .selectFrom("phone_changes")
    .selectAll()
    .where("user_id", "=", userId)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

export async function savePhoneChange(db: Db, row: PhoneChangeRow) {
  await db
    .insertInto("phone_changes")
    .values(row)
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        phone: row.phone,
        dial_code: row.dial_code,
        channel: row.channel,
        expires_at: row.expires_at,
        created_at: row.created_at,
      }),
    )
    .execute();
}

export async function deletePhoneChange(db: Db, userId: string) {
  await db.deleteFrom("phone_changes").where("user_id", "=", userId).execute();
}

/** Who an anonymised admin-audit row was done by, once that person's account is deleted. */
export const DELETED_PERSON = "deleted";

/**
 * What outlives a deleted account's rows loses the person: their watch events and sign-in audit rows keep what
 * happened and when, without their id (or the sign-in rows' address); the console's audit keeps each action with
 * "deleted" as its actor and no target id.
 */
export async function forgetPerson(db: Db, userId: string) {
  await db.updateTable("analytics_events").set({ user_id: null }).where("user_id", "=", userId).execute();
  await db.updateTable("audit_log").set({ user_id: null, ip: null }).where("user_id", "=", userId).execute();
  await db
    .updateTable("admin_audit_log")
    .set({ actor_id: DELETED_PERSON, actor_email: null })
    .where("actor_id", "=", userId)
    .execute();
  await db.updateTable("admin_audit_log").set({ target_id: null }).where("target_id", "=", userId).execute();
}
