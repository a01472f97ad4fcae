import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: the family's keepsake (issue 30). `keepsakes` holds what the family chose for their book (one per
 * account; `voices` a JSON list of `{kind, id}` in their order). `keepsake_links` holds share links: only a SHA-256
 * of each token, never the token, with who shared it, what it opens (the book, or one voice), the language of
 * its pages, when it stops working (null: never) and when the family revoked it. Both go with the account.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("keepsakes")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("dedication", "text", (c) => c.notNull())
    .addColumn("voices", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("keepsake_links")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("voice_kind", "text")
    .addColumn("voice_id", "text")
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("keepsake_links_user_idx").on("keepsake_links").columns(["user_id", "created_at"]).execute();
}
