import type { Insertable, Kysely } from "kysely";
import type { DB } from "../../db/database.ts";
import type { Database } from "../../db/schema.ts";

export async function findInstruction(db: DB, location: string) {
  return db
    .selectFrom("instructions")
    .select(["location", "media_path", "media_path_ar"])
    .where("location", "=", location)
    .executeTakeFirst();
}

export async function listDocuments(db: DB, keys: readonly string[]) {
  return db.selectFrom("documents").select(["key", "path", "path_ar"]).where("key", "in", keys).execute();
}

/**
 * Stores a submission; false when one with the same idempotency key is stored already (nothing written). One
 * statement, so two copies of a retried form arriving at once store one row.
 */
export async function insertContactSubmission(
  db: Kysely<Database>,
  row: Insertable<Database["contact_submissions"]>,
): Promise<boolean> {
  const result = await db
    .insertInto("contact_submissions")
    .values(row)
    .onConflict((oc) => oc.column("idempotency_key").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findContactSubmissionByKey(db: Kysely<Database>, idempotencyKey: string) {
  return db
    .selectFrom("contact_submissions")
    .select(["id", "created_at"])
    .where("idempotency_key", "=", idempotencyKey)
    .executeTakeFirst();
}
