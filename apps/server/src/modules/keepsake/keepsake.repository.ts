import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/** Migration 0022's tables, declared here so the shared schema file need not change for one module's tables. */
export interface KeepsakesTable {
  user_id: string;
  title: string;
  dedication: string;
  /** JSON: `[{ kind, id }]` in the family's order. */
  voices: string;
  updated_at: string;
}

export interface KeepsakeLinksTable {
  id: string;
  user_id: string;
  token_hash: string;
  scope: "book" | "voice";
  voice_kind: string | null;
  voice_id: string | null;
  language: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

type Db = Kysely<Database>;
const tables = (db: Db) => db.withTables<{ keepsakes: KeepsakesTable; keepsake_links: KeepsakeLinksTable }>();

export async function findKeepsake(db: Db, userId: string) {
  return tables(db).selectFrom("keepsakes").selectAll().where("user_id", "=", userId).executeTakeFirst();
}

export async function saveKeepsake(db: Db, row: KeepsakesTable) {
  await tables(db)
    .insertInto("keepsakes")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("user_id")
        .doUpdateSet({ title: row.title, dedication: row.dedication, voices: row.voices, updated_at: row.updated_at }),
    )
    .execute();
}

/** The stories the person watched, in the program's order (drafts and removed stories left out). */
export async function watchedStories(db: Db, userId: string) {
  return db
    .selectFrom("progress")
    .innerJoin("stories", "stories.id", "progress.story_id")
    .select([
      "stories.id",
      "stories.position",
      "stories.title_en",
      "stories.title_ar",
      "stories.thumbnail_path",
      "stories.thumbnail_path_ar",
    ])
    .where("progress.user_id", "=", userId)
    .where("stories.published", "=", 1)
    .orderBy("stories.position")
    .execute();
}

export async function questionsOf(db: Db, storyIds: string[]) {
  if (storyIds.length === 0) return [];
  return db
    .selectFrom("questions")
    .select(["id", "story_id", "position"])
    .where("story_id", "in", storyIds)
    .orderBy("story_id")
    .orderBy("position")
    .execute();
}

/** Family members' answers to those questions, with the speaker. */
export async function answersOf(db: Db, questionIds: string[]) {
  if (questionIds.length === 0) return [];
  return db
    .selectFrom("answers")
    .innerJoin("characters", "characters.id", "answers.character_id")
    .select([
      "answers.id",
      "answers.question_id",
      "answers.audio_path",
      "answers.position",
      "answers.created_at",
      "answers.transcript_en",
      "answers.transcript_ar",
      "characters.name_en",
      "characters.name_ar",
    ])
    .where("answers.question_id", "in", questionIds)
    .orderBy("answers.position")
    .execute();
}

/** The person's own recordings, oldest first (the order they were made in). */
export async function recordingsOf(db: Db, userId: string) {
  return db
    .selectFrom("recordings")
    .select(["id", "story_id", "question_index", "object_key", "duration_seconds", "created_at", "transcript", "version"])
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export async function profileNameOf(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom("profiles").select("name").where("user_id", "=", userId).executeTakeFirst();
  return row?.name?.trim() || null;
}

export async function insertLink(db: Db, row: KeepsakeLinksTable) {
  await tables(db).insertInto("keepsake_links").values(row).execute();
}

/** Links neither revoked nor past their expiry at `now`, newest first. */
export async function liveLinksOf(db: Db, userId: string, now: string) {
  return tables(db)
    .selectFrom("keepsake_links")
    .selectAll()
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
}

/** A link by its token's hash, with its family's ban (`banned_until`) read in the same statement. */
export async function findLinkByHash(db: Db, tokenHash: string) {
  return tables(db)
    .selectFrom("keepsake_links")
    .innerJoin("users", "users.id", "keepsake_links.user_id")
    .selectAll("keepsake_links")
    .select("users.banned_until as owner_banned_until")
    .where("keepsake_links.token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/** Revokes one link of the person; false when they have no such live link. */
export async function revokeLink(db: Db, userId: string, id: string, now: string): Promise<boolean> {
  const result = await tables(db)
    .updateTable("keepsake_links")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeAllLinks(db: Db, userId: string, now: string): Promise<number> {
  const result = await tables(db)
    .updateTable("keepsake_links")
    .set({ revoked_at: now })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
