import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import {
  type AdminQuestion,
  type AdminStory,
  publicObjectPath,
  type ReorderInput,
  type StoryInput,
  storyInputSchema,
} from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { isForeignKeyViolation, isRetryableTransactionError, isUniqueViolation } from "../../db/dialect.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, conflict, notFound } from "../../errors.ts";
import { type Actor, audit } from "./audit.service.ts";
import * as repo from "./stories.repository.ts";
import { storeUpload } from "./uploads.service.ts";

type StoryRow = NonNullable<Awaited<ReturnType<typeof repo.findStoryRow>>>;

const toAdminStory = (row: StoryRow & { question_count?: unknown; watched_count?: unknown }): AdminStory => ({
  id: row.id,
  order: Number(row.position),
  titleEn: row.title_en,
  titleAr: row.title_ar,
  subtitleEn: row.subtitle_en,
  subtitleAr: row.subtitle_ar,
  videoUrl: row.video_url,
  thumbnailUrl: row.thumbnail_path,
  questionCount: Number(row.question_count ?? 0),
  watchedCount: Number(row.watched_count ?? 0),
  updatedAt: row.updated_at,
});

export async function listStories(db: DB): Promise<AdminStory[]> {
  const rows = await repo.listStoriesWithCounts(db);
  return rows.map(toAdminStory);
}

export async function getStory(db: DB, id: string): Promise<AdminStory> {
  const row = (await repo.listStoriesWithCounts(db)).find((r) => r.id === id);
  if (!row) throw notFound("Story not found");
  return toAdminStory(row);
}

/**
 * A write that lost a race with another admin's (a unique place taken, or PostgreSQL giving up a
 * deadlock or serialisation failure) is a 409 to retry, not a server error.
 */
async function asConflict<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error) || isRetryableTransactionError(error))
      throw conflict("The stories were changed by someone else; reload and try again");
    throw error;
  }
}

/** Retries a write that lost a race for a unique place (two admins adding at once). */
async function withPlaceRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 3)
        throw isUniqueViolation(error) ? conflict("Someone else changed the order; try again") : error;
    }
  }
}

export async function createStory(deps: AppDeps, actor: Actor, input: StoryInput): Promise<AdminStory> {
  const data = storyInputSchema.parse(input);
  const id = randomUUID();
  await withPlaceRetry(() =>
    deps.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const order = await repo.storyOrder(trx);
      const position = (order.at(-1)?.position ?? 0) + 1;
      await repo.insertStoryRow(trx, {
        id,
        position,
        title_en: data.titleEn,
        title_ar: data.titleAr,
        subtitle_en: data.subtitleEn,
        subtitle_ar: data.subtitleAr,
        video_url: data.videoUrl,
        thumbnail_path: null,
        duration_seconds: null,
        created_at: now,
        updated_at: now,
      });
      await audit(
        trx,
        actor,
        "story.create",
        { type: "story", id },
        { order: position, titleEn: data.titleEn, videoUrl: data.videoUrl },
      );
    }),
  );
  return getStory(deps.db, id);
}

export async function updateStory(deps: AppDeps, actor: Actor, id: string, input: StoryInput): Promise<AdminStory> {
  const data = storyInputSchema.parse(input);
  await deps.db.transaction().execute(async (trx) => {
    const before = await repo.findStoryRow(trx, id);
    if (!before) throw notFound("Story not found");
    await repo.updateStoryRow(trx, id, {
      title_en: data.titleEn,
      title_ar: data.titleAr,
      subtitle_en: data.subtitleEn,
      subtitle_ar: data.subtitleAr,
      video_url: data.videoUrl,
      updated_at: new Date().toISOString(),
    });
    const changed = Object.fromEntries(
      (
        [
          ["titleEn", before.title_en, data.titleEn],
          ["titleAr", before.title_ar, data.titleAr],
          ["subtitleEn", before.subtitle_en, data.subtitleEn],
          ["subtitleAr", before.subtitle_ar, data.subtitleAr],
          ["videoUrl", before.video_url, data.videoUrl],
        ] as const
      )
        .filter(([, a, b]) => a !== b)
        .map(([k, a, b]) => [k, { from: a, to: b }]),
    );
    await audit(trx, actor, "story.update", { type: "story", id }, changed);
  });
  return getStory(deps.db, id);
}

/**
 * Deleting a story (documented in modules/admin/README.md): its questions and answers go with it; every
 * later story moves up one place. Progress rows that say someone watched it are kept as history, but
 * `lastWatchedStoryId` is read from the current orders of the stories that still exist (progress
 * module), so the frontier stays on stories the person really watched and nobody skips or repeats one.
 * Recordings are never deleted: they keep their story id and stay on the person's page.
 */
export async function deleteStory(
  deps: AppDeps,
  actor: Actor,
  id: string,
): Promise<{ id: string; watchedBy: number; recordingsKept: number }> {
  return deps.db.transaction().execute(async (trx) => {
    const story = await repo.findStoryRow(trx, id);
    if (!story) throw notFound("Story not found");
    const now = new Date().toISOString();
    const watchedBy = await repo.countProgressForStory(trx, id);
    const recordingsKept = await repo.countRecordingsForStory(trx, id);
    if ((await repo.deleteStoryRow(trx, id)) !== 1) throw conflict("The story was changed meanwhile; reload and try again");
    await repo.closeStoryGap(trx, story.position, now);
    await repo.resyncProgressPositions(trx);
    await audit(
      trx,
      actor,
      "story.delete",
      { type: "story", id },
      { order: story.position, titleEn: story.title_en, watchedBy, recordingsKept },
    );
    return { id, watchedBy, recordingsKept };
  });
}

/**
 * Puts the stories in the given order (1…n). `expected` is the order the admin saw: if the stored order
 * differs, someone else changed it meanwhile and the request is refused (409) rather than merged. Each
 * row only moves from the place it was read at, so two concurrent reorders cannot interleave either.
 */
export async function reorderStories(deps: AppDeps, actor: Actor, input: ReorderInput): Promise<AdminStory[]> {
  await asConflict(() =>
    deps.db.transaction().execute(async (trx) => {
      const current = await repo.storyOrder(trx);
      const currentIds = current.map((s) => s.id);
      if (currentIds.join() !== input.expected.join())
        throw conflict("The stories were changed by someone else; reload and try again");
      if (
        input.ids.length !== currentIds.length ||
        new Set(input.ids).size !== input.ids.length ||
        !input.ids.every((id) => currentIds.includes(id))
      )
        throw badRequest("ids must list every story exactly once");
      const now = new Date().toISOString();
      // Rows are taken in their stored order, the same for every concurrent reorder, so two of them queue
      // behind each other instead of deadlocking.
      for (const story of current) {
        const moved = await repo.parkStory(trx, story.id, story.position, input.ids.indexOf(story.id) + 1, now);
        if (moved !== 1) throw conflict("The stories were changed by someone else; reload and try again");
      }
      await repo.unparkStories(trx);
      await repo.resyncProgressPositions(trx);
      const moved = current
        .map((s) => ({ id: s.id, titleEn: s.title_en, from: s.position, to: input.ids.indexOf(s.id) + 1 }))
        .filter((m) => m.from !== m.to);
      await audit(trx, actor, "story.reorder", { type: "story" }, { moved });
    }),
  );
  return listStories(deps.db);
}

/** The thumbnail object is named by the story id in bucket "thumbnails" (spec section 3). */
export async function replaceThumbnail(deps: AppDeps, actor: Actor, id: string, file: Readable): Promise<AdminStory> {
  const story = await repo.findStoryRow(deps.db, id);
  if (!story) {
    file.resume();
    throw notFound("Story not found");
  }
  const stored = await storeUpload(deps.storage, file, { kind: "image", bucket: "thumbnails", key: () => id });
  // Same object name, new bytes: a version in the address lets caches pick the new picture up at once.
  const path = `${publicObjectPath("thumbnails", id)}?v=${Date.now()}`;
  await deps.db.transaction().execute(async (trx) => {
    if ((await repo.updateStoryRow(trx, id, { thumbnail_path: path, updated_at: new Date().toISOString() })) !== 1)
      throw notFound("Story not found");
    await audit(trx, actor, "story.thumbnail", { type: "story", id }, { size: stored.size, contentType: stored.contentType });
  });
  return getStory(deps.db, id);
}

// ─── questions and answers ────────────────────────────────────────────────────────────────────────

export async function listQuestions(db: DB, storyId: string): Promise<AdminQuestion[]> {
  if (!(await repo.findStoryRow(db, storyId))) throw notFound("Story not found");
  const questions = await repo.listQuestionRows(db, storyId);
  const answers = await repo.listAnswerRows(
    db,
    questions.map((q) => q.id),
  );
  return questions.map((q) => ({
    id: q.id,
    storyId: q.story_id,
    order: Number(q.position),
    media: q.media_path,
    answers: answers
      .filter((a) => a.question_id === q.id)
      .map((a) => ({
        id: a.id,
        questionId: a.question_id,
        characterId: a.character_id,
        characterNameEn: a.name_en,
        characterNameAr: a.name_ar,
        audio: a.audio_path,
        order: Number(a.position),
      })),
  }));
}

export async function addQuestion(deps: AppDeps, actor: Actor, storyId: string, media: string): Promise<AdminQuestion[]> {
  await withPlaceRetry(() =>
    deps.db.transaction().execute(async (trx) => {
      if (!(await repo.findStoryRow(trx, storyId))) throw notFound("Story not found");
      const id = randomUUID();
      const position = await repo.nextQuestionPosition(trx, storyId);
      await repo.insertQuestionRow(trx, {
        id,
        story_id: storyId,
        position,
        media_path: media,
        created_at: new Date().toISOString(),
      });
      await audit(trx, actor, "question.create", { type: "question", id }, { storyId, order: position, media });
    }),
  );
  return listQuestions(deps.db, storyId);
}

export async function updateQuestion(deps: AppDeps, actor: Actor, id: string, media: string): Promise<AdminQuestion[]> {
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, id);
    if (!question) throw notFound("Question not found");
    await repo.updateQuestionMedia(trx, id, media);
    await audit(
      trx,
      actor,
      "question.update",
      { type: "question", id },
      { storyId: question.story_id, media: { from: question.media_path, to: media } },
    );
    return question.story_id;
  });
  return listQuestions(deps.db, storyId);
}

export async function deleteQuestion(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, id);
    if (!question) throw notFound("Question not found");
    await repo.deleteQuestionRow(trx, question);
    await audit(
      trx,
      actor,
      "question.delete",
      { type: "question", id },
      { storyId: question.story_id, order: question.position },
    );
    return question.story_id;
  });
  return listQuestions(deps.db, storyId);
}

export async function reorderQuestions(
  deps: AppDeps,
  actor: Actor,
  storyId: string,
  input: ReorderInput,
): Promise<AdminQuestion[]> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await repo.listQuestionRows(trx, storyId);
    const currentIds = current.map((q) => q.id);
    if (currentIds.join() !== input.expected.join())
      throw conflict("The questions were changed by someone else; reload and try again");
    if (
      input.ids.length !== currentIds.length ||
      new Set(input.ids).size !== input.ids.length ||
      !input.ids.every((id) => currentIds.includes(id))
    )
      throw badRequest("ids must list every question of the story exactly once");
    for (const question of current) {
      if ((await repo.parkQuestion(trx, question.id, question.position, input.ids.indexOf(question.id) + 1)) !== 1)
        throw conflict("The questions were changed by someone else; reload and try again");
    }
    await repo.unparkQuestions(trx, storyId);
    await audit(trx, actor, "question.reorder", { type: "story", id: storyId }, { from: currentIds, to: input.ids });
  });
  return listQuestions(deps.db, storyId);
}

export async function addAnswer(
  deps: AppDeps,
  actor: Actor,
  questionId: string,
  input: { characterId: string; audio: string },
): Promise<AdminQuestion[]> {
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, questionId);
    if (!question) throw notFound("Question not found");
    const id = randomUUID();
    try {
      await repo.insertAnswerRow(trx, {
        id,
        question_id: questionId,
        character_id: input.characterId,
        audio_path: input.audio,
        position: await repo.nextAnswerPosition(trx, questionId),
        created_at: new Date().toISOString(),
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new AppError("validation_failed", "characterId: no such family member");
      throw error;
    }
    await audit(
      trx,
      actor,
      "answer.create",
      { type: "answer", id },
      { questionId, storyId: question.story_id, characterId: input.characterId, audio: input.audio },
    );
    return question.story_id;
  });
  return listQuestions(deps.db, storyId);
}

export async function updateAnswer(
  deps: AppDeps,
  actor: Actor,
  id: string,
  input: { characterId: string; audio: string },
): Promise<AdminQuestion[]> {
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const answer = await repo.findAnswerRow(trx, id);
    if (!answer) throw notFound("Answer not found");
    const question = await repo.findQuestionRow(trx, answer.question_id);
    try {
      await repo.updateAnswerRow(trx, id, { character_id: input.characterId, audio_path: input.audio });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new AppError("validation_failed", "characterId: no such family member");
      throw error;
    }
    await audit(trx, actor, "answer.update", { type: "answer", id }, { characterId: input.characterId, audio: input.audio });
    return question?.story_id ?? "";
  });
  return listQuestions(deps.db, storyId);
}

export async function deleteAnswer(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const answer = await repo.findAnswerRow(trx, id);
    if (!answer) throw notFound("Answer not found");
    const question = await repo.findQuestionRow(trx, answer.question_id);
    await repo.deleteAnswerRow(trx, id);
    await audit(trx, actor, "answer.delete", { type: "answer", id }, { questionId: answer.question_id });
    return question?.story_id ?? "";
  });
  return listQuestions(deps.db, storyId);
}
