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

export async function insertContactSubmission(db: Kysely<Database>, row: Insertable<Database["contact_submissions"]>) {
  await db.insertInto("contact_submissions").values(row).execute();
}
