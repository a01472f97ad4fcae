import type { Insertable, Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { versionWritten } from "../../db/versions.ts";

type Db = Kysely<Database>;

export async function insertRecording(db: Db, row: Insertable<Database["recordings"]>) {
  await db.insertInto("recordings").values(row).execute();
}

export async function listRecordingsOf(db: Db, userId: string) {
  return db
    .selectFrom("recordings")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
}

export async function findRecording(db: Db, id: string) {
  return db.selectFrom("recordings").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function countRecordings(db: Db) {
  const row = await db
    .selectFrom("recordings")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Conditional on the version the storyteller edited: null when another save came first. */
export async function updateRecordingTranscript(db: Db, id: string, transcript: string | null, version: number) {
  const row = await db
    .updateTable("recordings")
    .set({ transcript, version: version + 1 })
    .where("id", "=", id)
    .where("version", "=", version)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}
