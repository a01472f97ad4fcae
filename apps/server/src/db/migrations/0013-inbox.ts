import { type Kysely, sql } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: an inbox that scales (issue 17).
 * - `conversations.last_user_message_id`: the family's newest message, so "unread" (newer than the
 *   facilitators' read mark) and "waiting" (the newest message is the family's) are column comparisons
 *   instead of a look into `messages` for every row.
 * - `assigned_to` / `assigned_at`: the operator who took the conversation ("mine"); cleared if their account goes.
 * - The inbox pages by (last_message_id, user_id) descending; "mine" by (assigned_to, last_message_id).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
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
}
