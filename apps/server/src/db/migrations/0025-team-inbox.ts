import type { Kysely } from "kysely";
import { autoIncrementPrimaryKey, autoIncrementType, type DialectName } from "../dialect.ts";

/**
 * Frozen: the team's inbox tools (issue 40).
 * - `saved_replies`: the shared library of replies, each in English and Arabic (admins write, every operator reads).
 * - `conversation_notes`: private notes on a conversation, for operators only; they go with the person's account
 *   (cascade), and keep their text when their author's account goes (author set null).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("saved_replies")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("text_en", "text", (c) => c.notNull())
    .addColumn("text_ar", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("conversation_notes")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("author_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversation_notes_user_idx").on("conversation_notes").columns(["user_id", "id"]).execute();
}
