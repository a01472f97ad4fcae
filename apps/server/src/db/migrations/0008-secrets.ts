import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: server secrets shared by replicas (signing keys, the one-time-code HMAC secret, VAPID keys),
 * one JSON value per name. Used on PostgreSQL; on SQLite the same secrets stay in files under DATA_DIR/keys
 * and this table stays empty (it exists so both dialects have one schema).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
