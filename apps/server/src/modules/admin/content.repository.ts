import type { DB } from "../../db/database.ts";
import type { CharactersTable } from "../../db/schema.ts";

/** The console's queries on family members, landing answers, instruction videos and documents. */

export async function listCharacterRows(db: DB) {
  return db
    .selectFrom("characters as c")
    .selectAll("c")
    .select((eb) => [
      eb
        .selectFrom("answers as a")
        .whereRef("a.character_id", "=", "c.id")
        .select(eb.fn.countAll<number>().as("n"))
        .as("answer_count"),
      eb
        .selectFrom("landing_answers as l")
        .whereRef("l.character_id", "=", "c.id")
        .select(eb.fn.countAll<number>().as("n"))
        .as("landing_count"),
    ])
    .orderBy("c.created_at")
    .orderBy("c.name_en")
    .execute();
}

export async function findCharacterRow(db: DB, id: string) {
  return db.selectFrom("characters").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function insertCharacterRow(db: DB, row: CharactersTable) {
  await db.insertInto("characters").values(row).execute();
}

export async function updateCharacterRow(db: DB, id: string, values: Partial<Omit<CharactersTable, "id" | "key">>) {
  const result = await db.updateTable("characters").set(values).where("id", "=", id).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteCharacterRow(db: DB, id: string) {
  const result = await db.deleteFrom("characters").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listLandingAnswerRows(db: DB) {
  return db
    .selectFrom("landing_answers as l")
    .innerJoin("characters as c", "c.id", "l.character_id")
    .select(["l.id", "l.character_id", "l.audio_path", "l.position", "c.name_en", "c.name_ar"])
    .orderBy("l.position")
    .execute();
}

export async function nextLandingPosition(db: DB) {
  const row = await db
    .selectFrom("landing_answers")
    .select((eb) => eb.fn.max<number | null>("position").as("max"))
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

export async function insertLandingAnswerRow(
  db: DB,
  row: { id: string; character_id: string; audio_path: string; position: number; created_at: string },
) {
  await db.insertInto("landing_answers").values(row).execute();
}

export async function deleteLandingAnswerRow(db: DB, id: string) {
  const result = await db.deleteFrom("landing_answers").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listInstructionRows(db: DB) {
  return db.selectFrom("instructions").selectAll().execute();
}

export async function upsertInstruction(db: DB, location: string, mediaPath: string, now: string) {
  await db
    .insertInto("instructions")
    .values({ location, media_path: mediaPath, updated_at: now })
    .onConflict((oc) => oc.column("location").doUpdateSet({ media_path: mediaPath, updated_at: now }))
    .execute();
}

export async function listDocumentRows(db: DB) {
  return db.selectFrom("documents").selectAll().execute();
}

export async function upsertDocument(db: DB, key: string, path: string, now: string) {
  await db
    .insertInto("documents")
    .values({ key, path, updated_at: now })
    .onConflict((oc) => oc.column("key").doUpdateSet({ path, updated_at: now }))
    .execute();
}

export async function settingsVersion(db: DB): Promise<number> {
  const row = await db.selectFrom("site_settings").select("version").where("id", "=", 1).executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** Counts one save of the settings row, only if nobody saved since `expected` was read (0 rows: someone did). */
export async function bumpSettingsVersion(db: DB, expected: number) {
  const result = await db
    .updateTable("site_settings")
    .set({ version: expected + 1 })
    .where("id", "=", 1)
    .where("version", "=", expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
