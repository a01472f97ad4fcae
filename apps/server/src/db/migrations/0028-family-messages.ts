import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: `family_messages` (issue 39), what relatives leave through a share link: a reply under a voice or a
 * question for the book, typed (`text`) or recorded (`audio_key`, in the recordings bucket under the storyteller's
 * folder), with the name they gave and, if they want to be told of the answer, their number (E.164). `status`
 * pending → shown | hidden | answered; `answer_key` is the storyteller's recorded answer. `link_id` is the link it
 * came through (kept when the link is revoked, so the console can trace abuse); rows go with the account.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("family_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("link_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("text", "text")
    .addColumn("audio_key", "text")
    .addColumn("duration_seconds", "real")
    .addColumn("voice_kind", "text")
    .addColumn("voice_id", "text")
    .addColumn("phone", "text")
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("answer_key", "text")
    .addColumn("answered_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_messages_user_idx").on("family_messages").columns(["user_id", "created_at"]).execute();
  await db.schema.createIndex("family_messages_created_idx").on("family_messages").columns(["created_at"]).execute();
}
