import type { DB } from "../../db/database.ts";
import type { SavedRepliesTable } from "../../db/schema.ts";

/** The team's saved replies, by title (the composer's list and the console's page read them in that order). */
export async function listReplies(db: DB) {
  return db.selectFrom("saved_replies").selectAll().orderBy("title").orderBy("id").execute();
}

export async function findReply(db: DB, id: string) {
  return db.selectFrom("saved_replies").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function insertReply(db: DB, row: SavedRepliesTable) {
  await db.insertInto("saved_replies").values(row).execute();
}

export async function updateReply(
  db: DB,
  id: string,
  values: Pick<SavedRepliesTable, "title" | "text_en" | "text_ar" | "updated_at">,
) {
  const result = await db.updateTable("saved_replies").set(values).where("id", "=", id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteReply(db: DB, id: string) {
  const result = await db.deleteFrom("saved_replies").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
