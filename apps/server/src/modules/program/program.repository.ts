import { type Insertable, type Kysely, sql, type Updateable } from "kysely";
import type { Database, StoriesTable } from "../../db/schema.ts";

type Db = Kysely<Database>;

const STORY_COLUMNS = [
  "id",
  "position",
  "title_en",
  "title_ar",
  "subtitle_en",
  "subtitle_ar",
  "video_url",
  "thumbnail_path",
  "duration_seconds",
] as const;

export type StoryRow = Pick<StoriesTable, (typeof STORY_COLUMNS)[number]>;

export async function listStories(db: Db): Promise<StoryRow[]> {
  return db.selectFrom("stories").select(STORY_COLUMNS).orderBy("position").execute();
}

/**
 * In one round trip: the user's furthest watched order (null for none or a visitor) and a version of
 * the stories table (row count and newest update), so a cached list is reused only while it is current.
 */
export async function findListState(db: Db, userId: string | null): Promise<{ last: number; version: string }> {
  const { rows } = await sql<{ last: number | null; n: number | string; v: string | null }>`select
      (select max(s.position) from progress p inner join stories s on s.id = p.story_id where p.user_id = ${userId ?? ""}) as last,
      (select count(*) from stories) as n,
      (select max(updated_at) from stories) as v`.execute(db);
  const row = rows[0];
  return { last: Number(row?.last ?? 0), version: `${row?.n ?? 0}:${row?.v ?? ""}` };
}

export async function findStory(db: Db, id: string): Promise<StoryRow | undefined> {
  return db.selectFrom("stories").select(STORY_COLUMNS).where("id", "=", id).executeTakeFirst();
}

export async function listStoryIdsInOrder(db: Db): Promise<{ id: string; position: number }[]> {
  return db.selectFrom("stories").select(["id", "position"]).orderBy("position").execute();
}

export async function insertStory(db: Db, row: Insertable<Database["stories"]>) {
  await db.insertInto("stories").values(row).execute();
}

export async function updateStory(db: Db, id: string, values: Updateable<Database["stories"]>) {
  await db.updateTable("stories").set(values).where("id", "=", id).execute();
}

export async function deleteStory(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom("stories").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Gives the stories the orders 1…n of `ids`, keeping `position` unique at every step: rows that move
 * first take a negative placeholder, then flip to their final value. Run inside a transaction.
 */
export async function applyOrder(db: Db, current: { id: string; position: number }[], ids: string[]) {
  const now = new Date().toISOString();
  const was = new Map(current.map((s) => [s.id, s.position]));
  const moving = ids.map((id, i) => ({ id, position: i + 1 })).filter((s) => was.get(s.id) !== s.position);
  for (const s of moving) {
    await db.updateTable("stories").set({ position: -s.position, updated_at: now }).where("id", "=", s.id).execute();
  }
  if (moving.length) {
    await db
      .updateTable("stories")
      .set((eb) => ({ position: eb.neg(eb.ref("position")) }))
      .where("position", "<", 0)
      .execute();
  }
}

/** The question media and answers' audio of one story (deleting it releases them). */
export async function storyFilePaths(db: Db, storyId: string): Promise<string[]> {
  const questions = await db.selectFrom("questions").select("media_path as p").where("story_id", "=", storyId).execute();
  const answers = await db
    .selectFrom("answers")
    .innerJoin("questions", "questions.id", "answers.question_id")
    .select("answers.audio_path as p")
    .where("questions.story_id", "=", storyId)
    .execute();
  return [...questions, ...answers].map((r) => r.p);
}

export async function listQuestions(db: Db, storyId: string) {
  return db
    .selectFrom("questions")
    .select(["id", "position", "media_path"])
    .where("story_id", "=", storyId)
    .orderBy("position")
    .execute();
}

export async function listAnswers(db: Db, storyId: string) {
  return db
    .selectFrom("answers")
    .innerJoin("questions", "questions.id", "answers.question_id")
    .innerJoin("characters", "characters.id", "answers.character_id")
    .select([
      "answers.id",
      "answers.audio_path",
      "questions.id as question_id",
      "questions.position as question_position",
      "characters.id as character_id",
      "characters.name_en",
      "characters.name_ar",
      "characters.thumbnail_path",
    ])
    .where("questions.story_id", "=", storyId)
    .orderBy("questions.position")
    .orderBy("answers.position")
    .orderBy("answers.id")
    .execute();
}

export async function listLandingAnswers(db: Db) {
  return db
    .selectFrom("landing_answers")
    .innerJoin("characters", "characters.id", "landing_answers.character_id")
    .select([
      "landing_answers.id",
      "landing_answers.audio_path",
      "characters.name_en",
      "characters.name_ar",
      "characters.thumbnail_path",
    ])
    .orderBy("landing_answers.position")
    .orderBy("landing_answers.id")
    .execute();
}
