import type { DB } from "../../db/database.ts";
import { likeContains } from "../../db/dialect.ts";

/** The console's queries about people: profiles, recordings and the contact inbox. */

export async function findProfileRow(db: DB, userId: string) {
  return db.selectFrom("profiles").selectAll().where("user_id", "=", userId).executeTakeFirst();
}

/** The account behind a person's page: whether it is blocked, its login phone, its console role. */
export async function findAccountRow(db: DB, userId: string) {
  return db
    .selectFrom("users")
    .select(["id", "phone", "banned_until", "app_metadata"])
    .where("id", "=", userId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function listRecordingRows(db: DB, userId: string) {
  return db
    .selectFrom("recordings as r")
    .leftJoin("stories as s", "s.id", "r.story_id")
    .select([
      "r.id",
      "r.story_id",
      "r.question_index",
      "r.content_type",
      "r.size",
      "r.duration_seconds",
      "r.created_at",
      "s.title_en",
      "s.title_ar",
      "s.position",
    ])
    .where("r.user_id", "=", userId)
    .orderBy("r.created_at", "desc")
    .execute();
}

/**
 * Newest first, `limit` rows strictly after the (created_at, id) key `after`; `q` looks in the name, the phone,
 * the message and the e-mail of the account that sent it.
 */
export async function listContactRows(
  db: DB,
  options: { status: "open" | "handled" | "all"; limit: number; after?: readonly [string, string]; q?: string },
) {
  let query = db
    .selectFrom("contact_submissions as c")
    .leftJoin("users as u", "u.id", "c.user_id")
    .selectAll("c")
    .orderBy("c.created_at", "desc")
    .orderBy("c.id", "desc")
    .limit(options.limit);
  if (options.status === "open") query = query.where("c.handled_at", "is", null);
  if (options.status === "handled") query = query.where("c.handled_at", "is not", null);
  const after = options.after;
  if (after)
    query = query.where((eb) =>
      eb.or([eb("c.created_at", "<", after[0]), eb.and([eb("c.created_at", "=", after[0]), eb("c.id", "<", after[1])])]),
    );
  const q = options.q;
  if (q)
    query = query.where((eb) => eb.or(["c.name", "c.phone", "c.message", "u.email"].map((column) => likeContains(column, q))));
  return query.execute();
}

export async function setContactHandled(db: DB, id: string, handledAt: string | null) {
  const result = await db
    .updateTable("contact_submissions")
    .set({ handled_at: handledAt })
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
