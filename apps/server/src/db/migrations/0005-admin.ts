import type { Kysely } from "kysely";
import { autoIncrementPrimaryKey, autoIncrementType, type DialectName } from "../dialect.ts";

/**
 * Frozen: the operator console's audit trail. One row per admin action (who, what, when), written in
 * the same transaction as the change it describes, so the log never claims what did not happen.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("admin_audit_log")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("actor_email", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text")
    .addColumn("details", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("admin_audit_log_time_idx").on("admin_audit_log").columns(["created_at"]).execute();
}
