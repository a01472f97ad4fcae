import { sql } from "kysely";
import type { DB } from "../../db/database.ts";
import type { StoriesTable } from "../../db/schema.ts";
import { versionWritten } from "../../db/versions.ts";

/** Every query the story service makes on stories, questions and answers. All take `db | trx`. */

/** `lower(column) like %q%` with the wildcards of `q` taken literally (both dialects know `escape`). */
const containing = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listStoriesWithCounts(db: DB, options: { q?: string; limit?: number; offset?: number; id?: string } = {}) {
  let query = db
    .selectFrom("stories as s")
    .selectAll("s")
    .select((eb) => [
      eb
        .selectFrom("questions as q")
        .whereRef("q.story_id", "=", "s.id")
        .select(eb.fn.countAll<number>().as("n"))
        .as("question_count"),
      eb
        .selectFrom("progress as p")
        .whereRef("p.story_id", "=", "s.id")
        .select(eb.fn.countAll<number>().as("n"))
        .as("watched_count"),
    ])
    .orderBy("s.position");
  if (options.id) query = query.where("s.id", "=", options.id);
  if (options.q) {
    const like = containing(options.q);
    query = query.where((eb) =>
      eb.or([sql<boolean>`lower(s.title_en) like ${like} escape '\\'`, sql<boolean>`lower(s.title_ar) like ${like} escape '\\'`]),
    );
  }
  if (options.limit !== undefined) query = query.limit(options.limit).offset(options.offset ?? 0);
  return query.execute();
}

export async function countStories(db: DB, q: string) {
  let query = db.selectFrom("stories as s").select((eb) => eb.fn.countAll<number>().as("n"));
  if (q) {
    const like = containing(q);
    query = query.where((eb) =>
      eb.or([sql<boolean>`lower(s.title_en) like ${like} escape '\\'`, sql<boolean>`lower(s.title_ar) like ${like} escape '\\'`]),
    );
  }
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

export async function findStoryRow(db: DB, id: string) {
  return db.selectFrom("stories").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function storyOrder(db: DB) {
  return db.selectFrom("stories").select(["id", "position", "title_en", "published"]).orderBy("position").execute();
}

export async function insertStoryRow(db: DB, row: StoriesTable) {
  await db.insertInto("stories").values(row).execute();
}

export async function updateStoryRow(db: DB, id: string, values: Partial<Omit<StoriesTable, "id">>) {
  const result = await db.updateTable("stories").set(values).where("id", "=", id).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Counts one save, only if nobody saved since `expected` was read: the version written, null when someone came first. */
export async function bumpStoryVersion(db: DB, id: string, expected: number) {
  const row = await db
    .updateTable("stories")
    .set({ version: expected + 1 })
    .where("id", "=", id)
    .where("version", "=", expected)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

/**
 * Moves one row from its expected position to a temporary negative one; answers how many rows moved
 * (0 when someone else moved it first). Positions are unique, so every reorder goes through negatives.
 */
export async function parkStory(db: DB, id: string, expectedPosition: number, newPosition: number, now: string) {
  const result = await db
    .updateTable("stories")
    .set({ position: -newPosition, updated_at: now })
    .where("id", "=", id)
    .where("position", "=", expectedPosition)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function unparkStories(db: DB) {
  await db.updateTable("stories").set({ position: sql<number>`0 - position` }).where("position", "<", 0).execute();
}

/** Progress rows remember the watched story's place; keep it equal to the story's current place. */
export async function resyncProgressPositions(db: DB) {
  await db
    .updateTable("progress")
    .set({
      story_position: sql<number>`(select s.position from stories s where s.id = progress.story_id)`,
    })
    .where(
      sql<boolean>`exists (select 1 from stories s where s.id = progress.story_id and s.position <> progress.story_position)`,
    )
    .execute();
}

/**
 * How many people's furthest watched story would move later if the stories took `positions` (id → new place,
 * only those that move): for them a story they never watched would sit before it, and so show as watched.
 * The number of stories a person watched does not change with the order, so "more unwatched stories before the
 * furthest watched" is exactly "the furthest watched moves later".
 */
export async function countPeopleMovedAhead(db: DB, positions: Map<string, number>) {
  if (positions.size === 0) return 0;
  const branches = sql.join(
    [...positions].map(([id, position]) => sql`when ${id} then ${position}`),
    sql` `,
  );
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (
      select p.user_id, max(s.position) as was, max(case s.id ${branches} else s.position end) as will
      from progress p inner join stories s on s.id = p.story_id
      where s.published = 1
      group by p.user_id
    ) t where t.will > t.was`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export async function countProgressForStory(db: DB, storyId: string) {
  const row = await db
    .selectFrom("progress")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("story_id", "=", storyId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteStoryRow(db: DB, id: string) {
  // Answers go with their questions, questions with their story (foreign keys cascade); spelled out
  // here too so the result never depends on the dialect's cascade settings.
  const questionIds = db.selectFrom("questions").select("id").where("story_id", "=", id);
  await db.deleteFrom("answers").where("question_id", "in", questionIds).execute();
  await db.deleteFrom("questions").where("story_id", "=", id).execute();
  const result = await db.deleteFrom("stories").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countRecordingsForStory(db: DB, storyId: string) {
  const row = await db
    .selectFrom("recordings")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("story_id", "=", storyId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

// ─── questions and answers ────────────────────────────────────────────────────────────────────────

export async function listQuestionRows(db: DB, storyId: string) {
  return db.selectFrom("questions").selectAll().where("story_id", "=", storyId).orderBy("position").execute();
}

export async function findQuestionRow(db: DB, id: string) {
  return db.selectFrom("questions").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listAnswerRows(db: DB, questionIds: string[]) {
  if (questionIds.length === 0) return [];
  return db
    .selectFrom("answers as a")
    .innerJoin("characters as c", "c.id", "a.character_id")
    .select([
      "a.id",
      "a.question_id",
      "a.character_id",
      "a.audio_path",
      "a.position",
      "a.version",
      "a.transcript_en",
      "a.transcript_ar",
      "c.name_en",
      "c.name_ar",
    ])
    .where("a.question_id", "in", questionIds)
    .orderBy("a.question_id")
    .orderBy("a.position")
    .execute();
}

export async function nextQuestionPosition(db: DB, storyId: string) {
  const row = await db
    .selectFrom("questions")
    .select((eb) => eb.fn.max<number | null>("position").as("max"))
    .where("story_id", "=", storyId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

export async function insertQuestionRow(
  db: DB,
  row: { id: string; story_id: string; position: number; media_path: string; created_at: string },
) {
  await db.insertInto("questions").values(row).execute();
}

/** The question's Arabic video (migration 0017), saved on its own: not a save of the question (its version stays). */
export async function setQuestionArabicMedia(db: DB, id: string, mediaPath: string | null) {
  const result = await db.updateTable("questions").set({ media_path_ar: mediaPath }).where("id", "=", id).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Saves new media only if nobody saved the question since `version` was read: the version written, or null. */
/** The words are written only when given (left out, they stay). */
export async function updateQuestionMedia(
  db: DB,
  id: string,
  mediaPath: string,
  version: number,
  transcript?: { en: string | null; ar: string | null },
) {
  const words = transcript ? { transcript_en: transcript.en, transcript_ar: transcript.ar } : {};
  const row = await db
    .updateTable("questions")
    .set({ media_path: mediaPath, version: version + 1, ...words })
    .where("id", "=", id)
    .where("version", "=", version)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

export async function deleteQuestionRow(db: DB, question: { id: string; story_id: string; position: number }) {
  await db.deleteFrom("answers").where("question_id", "=", question.id).execute();
  await db.deleteFrom("questions").where("id", "=", question.id).execute();
  await db
    .updateTable("questions")
    .set({ position: sql<number>`1 - position` })
    .where("story_id", "=", question.story_id)
    .where("position", ">", question.position)
    .execute();
  await unparkQuestions(db, question.story_id);
}

export async function parkQuestion(db: DB, id: string, expectedPosition: number, newPosition: number) {
  const result = await db
    .updateTable("questions")
    .set({ position: -newPosition })
    .where("id", "=", id)
    .where("position", "=", expectedPosition)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function unparkQuestions(db: DB, storyId: string) {
  await db
    .updateTable("questions")
    .set({ position: sql<number>`0 - position` })
    .where("story_id", "=", storyId)
    .where("position", "<", 0)
    .execute();
}

export async function nextAnswerPosition(db: DB, questionId: string) {
  const row = await db
    .selectFrom("answers")
    .select((eb) => eb.fn.max<number | null>("position").as("max"))
    .where("question_id", "=", questionId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

export async function insertAnswerRow(
  db: DB,
  row: {
    id: string;
    question_id: string;
    character_id: string;
    audio_path: string;
    position: number;
    created_at: string;
    transcript_en: string | null;
    transcript_ar: string | null;
  },
) {
  await db.insertInto("answers").values(row).execute();
}

export async function findAnswerRow(db: DB, id: string) {
  return db.selectFrom("answers").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Like `updateQuestionMedia`: conditional on the version read. */
export async function updateAnswerRow(
  db: DB,
  id: string,
  values: { character_id: string; audio_path: string; transcript_en?: string | null; transcript_ar?: string | null },
  version: number,
) {
  const row = await db
    .updateTable("answers")
    .set({ ...values, version: version + 1 })
    .where("id", "=", id)
    .where("version", "=", version)
    .returning("version")
    .executeTakeFirst();
  return versionWritten(row);
}

export async function parkAnswer(db: DB, id: string, expectedPosition: number, newPosition: number) {
  const result = await db
    .updateTable("answers")
    .set({ position: -newPosition })
    .where("id", "=", id)
    .where("position", "=", expectedPosition)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function unparkAnswers(db: DB, questionId: string) {
  await db
    .updateTable("answers")
    .set({ position: sql<number>`0 - position` })
    .where("question_id", "=", questionId)
    .where("position", "<", 0)
    .execute();
}

export async function listAnswerOrder(db: DB, questionId: string) {
  return db.selectFrom("answers").select(["id", "position"]).where("question_id", "=", questionId).orderBy("position").execute();
}

/** Deletes an answer and closes the gap it left among its question's answers. */
export async function deleteAnswerRow(db: DB, answer: { id: string; question_id: string; position: number }) {
  const result = await db.deleteFrom("answers").where("id", "=", answer.id).executeTakeFirst();
  await db
    .updateTable("answers")
    .set({ position: sql<number>`1 - position` })
    .where("question_id", "=", answer.question_id)
    .where("position", ">", answer.position)
    .execute();
  await unparkAnswers(db, answer.question_id);
  return Number(result.numDeletedRows);
}
