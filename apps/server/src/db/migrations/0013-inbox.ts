import { type Kysely, sql } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: an inbox that scales (issue 17).
 * - `conversations.last_user_message_id`: the family's newest message, so "unread" (newer than the
 *   facilitators' read mark) and "waiting" (the newest message is the family's) are column comparisons
 *   instead of a look into `messages` for every row.
 * - `assigned_to` / `assigned_at`: the operator who took the conversation ("mine"); cleared if their account goes.
 * - The inbox pages by (last_message_id, user_id) descending; "mine" by (assigned_to, last_message_id).
 * - PostgreSQL: trigram indexes (pg_trgm, where the server has it) behind the search's "contains" (ILIKE '%…%') on
 *   names, e-mails, phone numbers and text messages; without them each search reads every row of those tables.
 *   SQLite reads them (a few milliseconds at 10,000 conversations).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("conversations")
    .addColumn("last_user_message_id", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("conversations")
    .addColumn("assigned_to", "text", (c) => c.references("users.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("conversations").addColumn("assigned_at", "text").execute();
  await sql`update conversations set last_user_message_id = coalesce(
      (select max(m.id) from messages m where m.user_id = conversations.user_id and m.sender_role = 'user'), 0)`.execute(db);

  await db.schema.dropIndex("conversations_last_idx").execute();
  await db.schema.createIndex("conversations_activity_idx").on("conversations").columns(["last_message_id", "user_id"]).execute();
  await db.schema
    .createIndex("conversations_assigned_idx")
    .on("conversations")
    .columns(["assigned_to", "last_message_id"])
    .execute();
  if (dialect === "postgres") await trigramIndexes(db);
}

async function trigramIndexes(db: Kysely<unknown>) {
  const available = await sql`select 1 from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  if (available.rows.length === 0) return;
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index profiles_name_trgm_idx on profiles using gin (name gin_trgm_ops)`.execute(db);
  // The same expression as the search's (messages.repository.ts matchingPeople), so the planner can use it.
  await sql`create index profiles_phone_trgm_idx on profiles using gin ((coalesce(country_code, '') || replace(replace(coalesce(phone_number, ''), ' ', ''), '-', '')) gin_trgm_ops)`.execute(
    db,
  );
  await sql`create index users_email_trgm_idx on users using gin (email gin_trgm_ops)`.execute(db);
  await sql`create index users_phone_trgm_idx on users using gin (phone gin_trgm_ops)`.execute(db);
  await sql`create index messages_text_trgm_idx on messages using gin (body gin_trgm_ops) where message_type = 'text'`.execute(
    db,
  );
}
