import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/** Migration 0025's table, declared here as the keepsake's own (see keepsake.repository.ts). */
export interface FamilyMessagesTable {
  id: string;
  user_id: string;
  link_id: string;
  kind: "reply" | "question";
  name: string;
  text: string | null;
  audio_key: string | null;
  duration_seconds: number | null;
  voice_kind: string | null;
  voice_id: string | null;
  phone: string | null;
  language: string;
  status: "pending" | "shown" | "hidden" | "answered";
  answer_key: string | null;
  answered_at: string | null;
  created_at: string;
  updated_at: string;
}

type Db = Kysely<Database>;
const tables = (db: Db) => db.withTables<{ family_messages: FamilyMessagesTable }>();

export async function insertFamilyMessage(db: Db, row: FamilyMessagesTable) {
  await tables(db).insertInto("family_messages").values(row).execute();
}

/** A storyteller's messages, newest first (id breaks ties so the order never depends on the engine). */
export async function familyMessagesOf(db: Db, userId: string) {
  return tables(db)
    .selectFrom("family_messages")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** One message of this storyteller's; another family's is not found. */
export async function findFamilyMessage(db: Db, userId: string, id: string) {
  return tables(db)
    .selectFrom("family_messages")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

export async function updateFamilyMessage(
  db: Db,
  userId: string,
  id: string,
  values: Partial<Pick<FamilyMessagesTable, "status" | "answer_key" | "answered_at">> & { updated_at: string },
) {
  return tables(db)
    .updateTable("family_messages")
    .set(values)
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .returningAll()
    .executeTakeFirst();
}

/** The newest messages of every family, for the console's abuse list. */
export async function latestFamilyMessages(db: Db, limit: number) {
  return tables(db)
    .selectFrom("family_messages")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

export async function findAnyFamilyMessage(db: Db, id: string) {
  return tables(db).selectFrom("family_messages").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function deleteFamilyMessage(db: Db, userId: string, id: string) {
  const result = await tables(db)
    .deleteFrom("family_messages")
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The stored files of a person's messages (account deletion removes them after the rows). */
export async function familyMessageKeysOf(db: Db, userId: string) {
  return tables(db).selectFrom("family_messages").select(["audio_key", "answer_key"]).where("user_id", "=", userId).execute();
}

/** Answered questions, oldest first, for a book (every link) or one link: what a listening page plays. */
export async function answeredQuestionsOf(db: Db, userId: string, linkId: string | null) {
  let query = tables(db)
    .selectFrom("family_messages")
    .selectAll()
    .where("user_id", "=", userId)
    .where("kind", "=", "question")
    .where("status", "=", "answered")
    .where("answer_key", "is not", null);
  if (linkId) query = query.where("link_id", "=", linkId);
  return query.orderBy("answered_at").orderBy("id").execute();
}

/** What the book holds of relatives' messages: the shown replies and the answered questions. */
export async function bookFamilyMessagesOf(db: Db, userId: string) {
  return tables(db)
    .selectFrom("family_messages")
    .selectAll()
    .where("user_id", "=", userId)
    .where((eb) =>
      eb.or([
        eb.and([eb("kind", "=", "reply"), eb("status", "=", "shown")]),
        eb.and([eb("kind", "=", "question"), eb("status", "=", "answered")]),
      ]),
    )
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}
