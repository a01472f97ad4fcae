import type { DB } from "../../db/database.ts";
import type { CharactersTable } from "../../db/schema.ts";
import { versionWritten } from "../../db/versions.ts";

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

/**
 * Saves a family member only if nobody saved since `expected` was read, counting the save: answers the version it
 * wrote, or null when someone else came first (a conditional bump, so of two racing saves from one version exactly
 * one wins).
 */
export async function updateCharacterRow(
  db: DB,
  id: string,
  expected: number,
  values: Partial<Omit<CharactersTable, "id" | "key" | "version">>,
) {
  const row = await db
    .updateTable("characters")
    .set({ ...values, version: expected + 1 })
    .where("id", "=", id)
    .where("version", "=", expected)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

export async function deleteCharacterRow(db: DB, id: string) {
  const result = await db.deleteFrom("characters").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listLandingAnswerRows(db: DB) {
  return db
    .selectFrom("landing_answers as l")
    .innerJoin("characters as c", "c.id", "l.character_id")
    .select([
      "l.id",
      "l.character_id",
      "l.audio_path",
      "l.position",
      "l.version",
      "l.transcript_en",
      "l.transcript_ar",
      "c.name_en",
      "c.name_ar",
    ])
    .orderBy("l.position")
    .orderBy("l.created_at")
    .execute();
}

export async function findLandingAnswerRow(db: DB, id: string) {
  return db.selectFrom("landing_answers").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Saves a landing answer only if nobody saved it since `expected` was read: the version written, or null. */
export async function updateLandingAnswerRow(
  db: DB,
  id: string,
  expected: number,
  values: { character_id: string; audio_path: string; transcript_en?: string | null; transcript_ar?: string | null },
) {
  const row = await db
    .updateTable("landing_answers")
    .set({ ...values, version: expected + 1 })
    .where("id", "=", id)
    .where("version", "=", expected)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

/** Moves one landing answer, only from the place it was read at: 0 rows means another reorder moved it first. */
export async function moveLandingAnswer(db: DB, id: string, expectedPosition: number, position: number) {
  const result = await db
    .updateTable("landing_answers")
    .set({ position })
    .where("id", "=", id)
    .where("position", "=", expectedPosition)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Closes the gap a deleted landing answer left, so places stay 1…n. */
export async function closeLandingGap(db: DB, fromPosition: number) {
  await db
    .updateTable("landing_answers")
    .set((eb) => ({ position: eb("position", "-", 1) }))
    .where("position", ">", fromPosition)
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
  row: {
    id: string;
    character_id: string;
    audio_path: string;
    position: number;
    created_at: string;
    transcript_en: string | null;
    transcript_ar: string | null;
  },
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

/**
 * Sets a location's video only if nobody saved it since `expected` was read (0 until the first save): answers
 * the version written, or null when someone else came first, including a first save racing another first save.
 */
export async function upsertInstruction(db: DB, location: string, mediaPath: string, now: string, expected: number) {
  const row = await db
    .insertInto("instructions")
    .values({ location, media_path: mediaPath, updated_at: now, version: expected + 1 })
    .onConflict((oc) =>
      oc
        .column("location")
        .doUpdateSet({ media_path: mediaPath, updated_at: now, version: expected + 1 })
        .where("instructions.version", "=", expected),
    )
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

export async function listDocumentRows(db: DB) {
  return db.selectFrom("documents").selectAll().execute();
}

/** Sets a document only if nobody saved it since `expected` was read (as upsertInstruction). */
export async function upsertDocument(
  db: DB,
  key: string,
  path: string,
  now: string,
  expected: number,
  transcript?: { transcript_en: string | null; transcript_ar: string | null },
) {
  const row = await db
    .insertInto("documents")
    .values({ key, path, updated_at: now, version: expected + 1, ...transcript })
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet({ path, updated_at: now, version: expected + 1, ...transcript })
        .where("documents.version", "=", expected),
    )
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

export async function settingsVersion(db: DB): Promise<number> {
  const row = await db.selectFrom("site_settings").select("version").where("id", "=", 1).executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** Counts one save of the settings row, only if nobody saved since `expected` was read: the version written, or null. */
export async function bumpSettingsVersion(db: DB, expected: number) {
  const row = await db
    .updateTable("site_settings")
    .set({ version: expected + 1 })
    .where("id", "=", 1)
    .where("version", "=", expected)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}
