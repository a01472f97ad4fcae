import type { DB } from "../../db/database.ts";

/** The Arabic column beside an instruction's English (default) video (migration 0017). */

export async function findInstructionRow(db: DB, location: string) {
  return db.selectFrom("instructions").selectAll().where("location", "=", location).executeTakeFirst();
}

export async function setInstructionArabicMedia(db: DB, location: string, mediaPath: string | null, now: string) {
  const result = await db
    .updateTable("instructions")
    .set({ media_path_ar: mediaPath, updated_at: now })
    .where("location", "=", location)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
