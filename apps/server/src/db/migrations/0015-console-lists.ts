import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: no lost edits beyond stories and settings, and long console lists. `version` counts the saves of a
 * family member, a landing answer, an instruction video and a document (as 0012 did for stories). The indexes
 * serve the lists' keyset pages, newest first: contact messages and the outbox by (created_at, id); the audit
 * log pages by its id, its primary key.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  for (const table of ["characters", "landing_answers", "instructions", "documents"]) {
    await db.schema
      .alterTable(table)
      .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.createIndex("contact_submissions_page_idx").on("contact_submissions").columns(["created_at", "id"]).execute();
  await db.schema.createIndex("sms_outbox_page_idx").on("sms_outbox").columns(["created_at", "id"]).execute();
}
