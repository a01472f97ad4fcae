import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: `contact_submissions.idempotency_key`, so a Contact Us form sent again after a dropped connection is
 * stored once. It holds a SHA-256 of who sent it (the account, else the address) and the key the form sent, never
 * the address itself; null for submissions without a key (older clients), which unique indexes let repeat.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("contact_submissions").addColumn("idempotency_key", "text").execute();
  await db.schema
    .createIndex("contact_submissions_idempotency_key_idx")
    .on("contact_submissions")
    .column("idempotency_key")
    .unique()
    .execute();
}
