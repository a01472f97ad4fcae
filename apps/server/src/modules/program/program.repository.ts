import type { Kysely } from "kysely";
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
  "video_url_ar",
  "thumbnail_path",
  "thumbnail_path_ar",
  "duration_seconds",
  "published",
] as const;

export type StoryRow = Pick<StoriesTable, (typeof STORY_COLUMNS)[number]>;

/** The stories families see: drafts are left out (they sit after every published one, so orders stay 1…p). */
export async function listStories(db: Db): Promise<StoryRow[]> {
  return db.selectFrom("stories").select(STORY_COLUMNS).where("published", "=", 1).orderBy("position").execute();
}

/** Every story, drafts too (what the spec's admin writes answer). */
export async function listAllStories(db: Db): Promise<StoryRow[]> {
  return db.selectFrom("stories").select(STORY_COLUMNS).orderBy("position").execute();
}

export async function findStory(db: Db, id: string): Promise<StoryRow | undefined> {
  return db.selectFrom("stories").select(STORY_COLUMNS).where("id", "=", id).executeTakeFirst();
}

export async function listQuestions(db: Db, storyId: string) {
  return db
    .selectFrom("questions")
    .select(["id", "position", "media_path", "media_path_ar", "transcript_en", "transcript_ar"])
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
      "answers.transcript_en",
      "answers.transcript_ar",
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
      "landing_answers.transcript_en",
      "landing_answers.transcript_ar",
      "characters.name_en",
      "characters.name_ar",
      "characters.thumbnail_path",
    ])
    .orderBy("landing_answers.position")
    .orderBy("landing_answers.id")
    .execute();
}
