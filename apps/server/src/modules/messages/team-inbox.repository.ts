import type { DB } from "../../db/database.ts";

/** Private notes on a conversation and the operators a conversation can be handed to. */
const NOTES_MAX = 500;

export async function insertNote(db: DB, values: { user_id: string; author_id: string; body: string; created_at: string }) {
  return db.insertInto("conversation_notes").values(values).returningAll().executeTakeFirstOrThrow();
}

/** A conversation's notes in time order: the newest NOTES_MAX (a note is a few lines; more would be a diary). */
export async function listNotes(db: DB, userId: string) {
  const rows = await db
    .selectFrom("conversation_notes")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("id", "desc")
    .limit(NOTES_MAX)
    .execute();
  return rows.reverse();
}

/**
 * The accounts that hold a console role, with what names them (the caller reads the role and the name from these).
 * The LIKE narrows the scan to accounts that mention a role; the caller parses app_metadata to be sure.
 */
export async function listOperatorAccounts(db: DB, id?: string) {
  return db
    .selectFrom("users as u")
    .leftJoin("profiles as p", "p.user_id", "u.id")
    .select(["u.id", "u.email", "u.phone", "u.app_metadata", "u.user_metadata", "p.name"])
    .where("u.deleted_at", "is", null)
    .where("u.app_metadata", "like", '%"role":%')
    .$if(id !== undefined, (q) => q.where("u.id", "=", id as string))
    .orderBy("u.created_at", "asc")
    .execute();
}
