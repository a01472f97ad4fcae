import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

type Db = Kysely<Database>;

/**
 * The order of the furthest story the user has watched, 0 if none (the spec's lastWatchedStoryId).
 * Read from the stories' current orders, so deleting or inserting a story keeps the frontier on the
 * stories the person really watched.
 */
export async function findLastWatchedOrder(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom("progress")
    .innerJoin("stories", "stories.id", "progress.story_id")
    .select((eb) => eb.fn.max("stories.position").as("last"))
    .where("progress.user_id", "=", userId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** A published story's id and order; a draft is not there for families (it sits after every published story). */
export async function findPublishedStory(db: Db, storyId: string) {
  return db
    .selectFrom("stories")
    .select(["id", "position"])
    .where("id", "=", storyId)
    .where("published", "=", 1)
    .executeTakeFirst();
}

export async function listWatched(db: Db, userId: string) {
  return db
    .selectFrom("progress")
    .innerJoin("stories", "stories.id", "progress.story_id")
    .select(["stories.id", "stories.position", "stories.title_en", "stories.title_ar", "progress.watched_at"])
    .where("progress.user_id", "=", userId)
    .orderBy("stories.position")
    .execute();
}

/** Records a watch once; returns false when it was already recorded. */
export async function insertWatch(
  db: Db,
  row: { user_id: string; story_id: string; story_position: number; watched_at: string },
) {
  const result = await db
    .insertInto("progress")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "story_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Where the person stopped in a story (whole seconds), or undefined. */
export async function findPosition(db: Db, userId: string, storyId: string) {
  const row = await db
    .selectFrom("playback_positions")
    .select("seconds")
    .where("user_id", "=", userId)
    .where("story_id", "=", storyId)
    .executeTakeFirst();
  return row?.seconds;
}

export async function savePosition(db: Db, row: { user_id: string; story_id: string; seconds: number; updated_at: string }) {
  await db
    .insertInto("playback_positions")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "story_id"]).doUpdateSet({ seconds: row.seconds, updated_at: row.updated_at }))
    .execute();
}
