import type { PlaybackPosition, WatchedStory, WatchStoryResult } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, forbidden, notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/guards.ts";
import { lastWatchedCacheOf, startLastWatchedCache } from "./last-watched.ts";
import {
  findLastWatchedOrder,
  findPosition,
  findPublishedStory,
  insertWatch,
  listWatched,
  savePosition,
} from "./progress.repository.ts";
import { watchStatusOf } from "./watch-status.ts";

export async function watchedStoriesOf(deps: Pick<AppDeps, "db">, userId: string): Promise<WatchedStory[]> {
  const rows = await listWatched(deps.db, userId);
  return rows.map((r) => ({
    _id: r.id,
    storyId: r.id,
    order: r.position,
    title: r.title_en,
    titleB: r.title_ar,
    watchedAt: r.watched_at,
  }));
}

/** The person's furthest watched order, from memory while no progress or story changed (last-watched.ts). */
export const lastWatchedOrderOf = (deps: Pick<AppDeps, "db">, userId: string): Promise<number> =>
  lastWatchedCacheOf(deps.db)?.read(userId, () => findLastWatchedOrder(deps.db, userId)) ?? findLastWatchedOrder(deps.db, userId);

/** Starts the in-memory furthest-watched orders for this app (app.ts, at start-up). */
export const startProgressCache = (deps: AppDeps) => startLastWatchedCache(deps);

/**
 * POST /users/{id}/watchStory/{storyId}: only the person themself records their watching. Watching an
 * already watched story changes nothing; watching past the next unlocked one is refused.
 */
export async function watchStory(
  deps: Pick<AppDeps, "db">,
  auth: AuthContext,
  userId: string,
  storyId: string,
): Promise<WatchStoryResult> {
  if (auth.userId !== userId) throw forbidden("You can only record your own progress");
  const outcome = await deps.db.transaction().execute(async (trx) => {
    // A draft is not there for families (it sits after every published story; the stories module).
    const story = await findPublishedStory(trx, storyId);
    if (!story) throw notFound("Story not found");
    const last = await findLastWatchedOrder(trx, userId);
    if (watchStatusOf(story.position, last) === "Locked") {
      throw new AppError("story_out_of_order", `Watch story ${last + 1} first`, {
        lastWatchedStoryId: last,
        order: story.position,
      });
    }
    const inserted = await insertWatch(trx, {
      user_id: userId,
      story_id: story.id,
      story_position: story.position,
      watched_at: new Date().toISOString(),
    });
    return { story, inserted, last: Math.max(last, story.position) };
  });
  return {
    storyId: outcome.story.id,
    order: outcome.story.position,
    newlyWatched: outcome.inserted,
    lastWatchedStoryId: outcome.last,
    watchedStories: await watchedStoriesOf(deps, userId),
  };
}

/** Where the person stopped in a story, in whole seconds (0: from the start). */
export async function positionOf(deps: Pick<AppDeps, "db">, userId: string, storyId: string): Promise<number> {
  return (await findPosition(deps.db, userId, storyId)) ?? 0;
}

/**
 * POST /users/{id}/position/{storyId}: only the person themself, and only in a story they may watch: a locked or
 * unknown story keeps no position (it would tell nothing, and a bad call changes nothing).
 */
export async function savePlaybackPosition(
  deps: Pick<AppDeps, "db">,
  auth: AuthContext,
  userId: string,
  storyId: string,
  seconds: number,
): Promise<PlaybackPosition> {
  if (auth.userId !== userId) throw forbidden("You can only record your own progress");
  const story = await findPublishedStory(deps.db, storyId);
  if (!story) throw notFound("Story not found");
  if (watchStatusOf(story.position, await lastWatchedOrderOf(deps, userId)) === "Locked")
    throw new AppError("story_locked", "This story is locked. Watch the stories before it first.", { order: story.position });
  await savePosition(deps.db, { user_id: userId, story_id: story.id, seconds, updated_at: new Date().toISOString() });
  return { storyId: story.id, seconds };
}
