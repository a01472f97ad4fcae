import type { Readable } from "node:stream";
import type { AdminQuestion, AdminStory } from "@hikaya/contracts";
import { publicObjectPath } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { checkStoryMediaOrigin, listedVideoOrigins } from "../settings/video-origins.ts";
import { privateMediaRef, releaseFiles } from "../storage/story-media.ts";
import { storeUpload } from "../storage/uploads.service.ts";
import { listQuestions } from "./questions.service.ts";
import * as repo from "./stories.repository.ts";
import { getStory } from "./stories.service.ts";

/**
 * A story's and a question's Arabic file beside the English one (issue 17). English stays the default and the
 * fallback, so these are set and removed on their own, saved at once like a thumbnail: they are not a save of the
 * story's or question's text (`version`), so an editor open in another tab is not made stale by them. They move the
 * story's updated_at, which the families' cached story list is checked against. Each answers the story (or the
 * questions) as its own transaction left it, version included, not as a save committed after it left it.
 */

/** The object name of a story's Arabic thumbnail, beside the English one named by the story id (spec section 3). */
export const arabicThumbnailKey = (storyId: string) => `${storyId}-ar`;

export async function setStoryArabicVideo(deps: AppDeps, actor: Actor, id: string, given: string | null): Promise<AdminStory> {
  if (!(await repo.findStoryRow(deps.db, id))) throw notFound("Story not found");
  if (given && !given.startsWith("/storage/")) checkStoryMediaOrigin("videoUrl", given, await listedVideoOrigins(deps.db));
  const video = given === null ? null : await privateMediaRef(deps, given, "videoUrl");
  const { replaced, answer } = await deps.db
    .transaction()
    .execute(async (trx) => {
      const before = await repo.findStoryRow(trx, id);
      if (!before || !(await repo.updateStoryRow(trx, id, { video_url_ar: video, updated_at: new Date().toISOString() })))
        throw notFound("Story not found");
      await audit(trx, actor, "story.video_ar", { type: "story", id }, { from: before.video_url_ar ?? null, to: video });
      return { replaced: before.video_url_ar, answer: await getStory({ ...deps, db: trx }, id) };
    })
    .catch(async (error: unknown) => {
      await releaseFiles(deps, [video]);
      throw error;
    });
  await releaseFiles(deps, [replaced]);
  return answer;
}

/** Stores the picture as `<story id>-ar` in "thumbnails" (a new `?v=` so caches take the new bytes at once). */
export async function replaceArabicThumbnail(deps: AppDeps, actor: Actor, id: string, file: Readable): Promise<AdminStory> {
  if (!(await repo.findStoryRow(deps.db, id))) {
    file.resume();
    throw notFound("Story not found");
  }
  const key = arabicThumbnailKey(id);
  const stored = await storeUpload(deps.storage, file, { kind: "image", bucket: "thumbnails", key: () => key });
  const path = `${publicObjectPath("thumbnails", key)}?v=${Date.now()}`;
  return deps.db.transaction().execute(async (trx) => {
    if (!(await repo.updateStoryRow(trx, id, { thumbnail_path_ar: path, updated_at: new Date().toISOString() })))
      throw notFound("Story not found");
    await audit(trx, actor, "story.thumbnail_ar", { type: "story", id }, { size: stored.size, contentType: stored.contentType });
    return getStory({ ...deps, db: trx }, id);
  });
}

export async function removeArabicThumbnail(deps: AppDeps, actor: Actor, id: string): Promise<AdminStory> {
  const { replaced, answer } = await deps.db.transaction().execute(async (trx) => {
    const before = await repo.findStoryRow(trx, id);
    if (!before || !(await repo.updateStoryRow(trx, id, { thumbnail_path_ar: null, updated_at: new Date().toISOString() })))
      throw notFound("Story not found");
    await audit(trx, actor, "story.thumbnail_ar", { type: "story", id }, { removed: true });
    return { replaced: before.thumbnail_path_ar, answer: await getStory({ ...deps, db: trx }, id) };
  });
  await releaseFiles(deps, [replaced]);
  return answer;
}

export async function setQuestionArabicMedia(
  deps: AppDeps,
  actor: Actor,
  id: string,
  given: string | null,
): Promise<AdminQuestion[]> {
  if (!(await repo.findQuestionRow(deps.db, id))) throw notFound("Question not found");
  const media = given === null ? null : await privateMediaRef(deps, given, "media");
  const { answer, replaced } = await deps.db
    .transaction()
    .execute(async (trx) => {
      const question = await repo.findQuestionRow(trx, id);
      if (!question || !(await repo.setQuestionArabicMedia(trx, id, media))) throw notFound("Question not found");
      await audit(
        trx,
        actor,
        "question.media_ar",
        { type: "question", id },
        { storyId: question.story_id, media: { from: question.media_path_ar ?? null, to: media } },
      );
      return { answer: await listQuestions({ ...deps, db: trx }, question.story_id), replaced: question.media_path_ar };
    })
    .catch(async (error: unknown) => {
      await releaseFiles(deps, [media]);
      throw error;
    });
  await releaseFiles(deps, [replaced]);
  return answer;
}
