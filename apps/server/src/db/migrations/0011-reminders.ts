import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: story reminders and push notifications.
 * - `reminder_settings`: one row (id 1): the rules and the en/ar templates (defaults until an operator saves).
 * - `reminder_jobs`: one row per reminder. `idempotency_key` (user, story, sequence) is unique, so two
 *   replicas planning at once create one job; a job is claimed (status `sending`) before it is sent, and
 *   the outbox row written with `purpose = reminder:<id>` is how a crashed claim learns it was delivered.
 * - `reminder_stop_uses`: stop links already used (a link works once).
 * - `push_subscriptions`: a person's browsers (Web Push), removed when the push service answers 404/410.
 * - `profiles.reminders_stopped_via`: how reminders were last turned off (link, reply, profile); the
 *   time is `agree_to_reminder_at`.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("reminder_settings")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("first_after_hours", "integer", (c) => c.notNull())
    .addColumn("repeat_after_hours", "integer", (c) => c.notNull())
    .addColumn("max_per_story", "integer", (c) => c.notNull())
    .addColumn("window_start", "text", (c) => c.notNull())
    .addColumn("window_end", "text", (c) => c.notNull())
    .addColumn("template_en", "text", (c) => c.notNull())
    .addColumn("template_ar", "text", (c) => c.notNull())
    .addColumn("updated_at", "text")
    .execute();

  await db.schema
    .createTable("reminder_jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("story_id", "text", (c) => c.notNull())
    .addColumn("sequence", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("channel", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("due_at", "text", (c) => c.notNull())
    .addColumn("next_try_at", "text", (c) => c.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("claimed_at", "text")
    .addColumn("sent_at", "text")
    .addColumn("outbox_id", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("reminder_jobs_status_idx").on("reminder_jobs").columns(["status", "next_try_at"]).execute();
  await db.schema.createIndex("reminder_jobs_user_idx").on("reminder_jobs").columns(["user_id", "story_id"]).execute();
  await db.schema.createIndex("reminder_jobs_created_idx").on("reminder_jobs").columns(["created_at", "id"]).execute();

  await db.schema
    .createTable("reminder_stop_uses")
    .addColumn("token_id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("used_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("push_subscriptions")
    .addColumn("endpoint", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("p256dh", "text", (c) => c.notNull())
    .addColumn("auth", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("push_subscriptions_user_idx").on("push_subscriptions").columns(["user_id"]).execute();

  await db.schema.alterTable("profiles").addColumn("reminders_stopped_via", "text").execute();
}
