import type { Kysely } from "kysely";
import { autoIncrementPrimaryKey, autoIncrementType, type DialectName } from "../dialect.ts";

/**
 * Frozen: the Message Center. `messages.id` is the conversation's order, the pagination cursor and the
 * live stream's event id; inserts are serialised (see dialect.ts `lockMessageSequence`) so ids commit
 * in order and a reconnecting client can catch up with `id > last`. `conversations` is one row per
 * user: the inbox's sort key and each side's read mark.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("messages")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("sender_id", "text", (c) => c.notNull())
    .addColumn("sender_role", "text", (c) => c.notNull())
    .addColumn("message_type", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("duration_seconds", "real")
    .addColumn("client_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("messages_sender_client_unique", ["sender_id", "client_id"])
    .execute();
  await db.schema.createIndex("messages_user_id_idx").on("messages").columns(["user_id", "id"]).execute();

  await db.schema
    .createTable("conversations")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("last_message_id", "bigint", (c) => c.notNull())
    .addColumn("last_message_at", "text", (c) => c.notNull())
    .addColumn("user_read_id", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("facilitator_read_id", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("conversations_last_idx").on("conversations").columns(["last_message_id"]).execute();
}
