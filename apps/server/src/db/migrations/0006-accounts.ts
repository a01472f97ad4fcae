import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: a person's own account over time. The consent answers keep the time they were given (the
 * console shows both), the language texts are sent in, and a login-phone change waiting for the code
 * sent to the new number (nothing about the login changes until that code is verified).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("profiles").addColumn("agree_to_reminder_at", "text").execute();
  await db.schema.alterTable("profiles").addColumn("whatsapp_opt_in_at", "text").execute();
  await db.schema.alterTable("profiles").addColumn("language", "text").execute();

  await db.schema
    .createTable("phone_changes")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("dial_code", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}
