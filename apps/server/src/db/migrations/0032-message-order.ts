import { type Kysely, sql } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: messages without one lock for the whole database (issue 41). `messages.tx` is the inserting transaction's
 * id on PostgreSQL (`pg_current_xact_id()`, xid8): readers of every conversation go in (tx, id) order and read only
 * rows whose transaction is older than every transaction still running, so a row that commits late can never land
 * behind a reader's cursor. SQLite has one writer, so its ids already commit in order: there `tx` is always 0.
 * Rows stored before this migration all take the migration's own transaction id and keep their id order.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === "postgres")
    await db.schema
      .alterTable("messages")
      .addColumn("tx", sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`))
      .execute();
  else
    await db.schema
      .alterTable("messages")
      .addColumn("tx", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  await db.schema.createIndex("messages_tx_id_idx").on("messages").columns(["tx", "id"]).execute();
}
