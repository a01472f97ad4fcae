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
import { isForeignKeyViolation, isRetryableTransactionError, isUniqueViolation } from "../../db/dialect.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, conflict, notFound } from "../../errors.ts";
import { privateMediaRef, releaseFiles, signMedia } from "../storage/story-media.ts";
import { type Actor, audit } from "./audit.service.ts";
import * as repo from "./stories.repository.ts";
import { storeUpload } from "./uploads.service.ts";
import { StaleSave, savedOrStale } from "./versions.ts";

type StoryRow = NonNullable<Awaited<ReturnType<typeof repo.findStoryRow>>>;
/** Reads give a story's private media as signed links, so the console can preview them (story-media.ts). */
type ReadDeps = Pick<AppDeps, "db" | "auth">;

const toAdminStory = (deps: ReadDeps, row: StoryRow & { question_count?: unknown; watched_count?: unknown }): AdminStory => ({
  id: row.id,
  order: Number(row.position),
  titleEn: row.title_en,
  titleAr: row.title_ar,
  subtitleEn: row.subtitle_en,
  subtitleAr: row.subtitle_ar,
  videoUrl: signMedia(deps, row.video_url),
  thumbnailUrl: row.thumbnail_path,
  questionCount: Number(row.question_count ?? 0),
  watchedCount: Number(row.watched_count ?? 0),
  updatedAt: row.updated_at,
  version: Number(row.version ?? 0),
});

export async function listStories(deps: ReadDeps): Promise<AdminStory[]> {
  const rows = await repo.listStoriesWithCounts(deps.db);
  return rows.map((row) => toAdminStory(deps, row));
}

export async function getStory(deps: ReadDeps, id: string): Promise<AdminStory> {
  const row = (await repo.listStoriesWithCounts(deps.db)).find((r) => r.id === id);
  if (!row) throw notFound("Story not found");
  return toAdminStory(deps, row);
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
  const videoUrl = await privateMediaRef(deps, data.videoUrl, "videoUrl");
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
        video_url: videoUrl,
        thumbnail_path: null,
        duration_seconds: null,
        created_at: now,
        updated_at: now,
      });
      await audit(trx, actor, "story.create", { type: "story", id }, { order: position, titleEn: data.titleEn, videoUrl });
    }),
  );
  return getStory(deps, id);
}

export async function updateStory(deps: AppDeps, actor: Actor, id: string, input: StoryInput): Promise<AdminStory> {
  const data = storyInputSchema.parse(input);
  const videoUrl = await privateMediaRef(deps, data.videoUrl, "videoUrl");
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = await repo.findStoryRow(trx, id);
      if (!before) throw notFound("Story not found");
      const stored = Number(before.version ?? 0);
      // Conditional on the version read: of two saves racing from one version, the second finds 0 rows.
      if ((data.version !== undefined && data.version !== stored) || !(await repo.bumpStoryVersion(trx, id, stored)))
        throw new StaleSave();
      await repo.updateStoryRow(trx, id, {
        title_en: data.titleEn,
        title_ar: data.titleAr,
        subtitle_en: data.subtitleEn,
        subtitle_ar: data.subtitleAr,
        video_url: videoUrl,
        updated_at: new Date().toISOString(),
      });
      const changed = Object.fromEntries(
        (
          [
            ["titleEn", before.title_en, data.titleEn],
            ["titleAr", before.title_ar, data.titleAr],
            ["subtitleEn", before.subtitle_en, data.subtitleEn],
            ["subtitleAr", before.subtitle_ar, data.subtitleAr],
            ["videoUrl", before.video_url, videoUrl],
          ] as const
        )
          .filter(([, a, b]) => a !== b)
          .map(([k, a, b]) => [k, { from: a, to: b }]),
      );
      await audit(trx, actor, "story.update", { type: "story", id }, changed);
      return before.video_url;
    });
  const replaced = await savedOrStale(save, () => getStory(deps, id));
  // The video it replaced goes once no row uses it.
  await releaseFiles(deps, [replaced]);
  return getStory(deps, id);
}

/**
 * Deleting a story (documented in modules/admin/README.md): its questions and answers go with it; every
 * later story moves up one place. Progress rows that say someone watched it are kept as history, but
 * `lastWatchedStoryId` is read from the current orders of the stories that still exist (progress
 * module), so the frontier stays on stories the person really watched and nobody skips or repeats one.
 * Recordings are never deleted: they keep their story id and stay on the person's page. The story's files
 * (video, thumbnail, question media, answers) are removed once the rows are gone, unless another row uses one.
 */
export async function deleteStory(
  deps: AppDeps,
  actor: Actor,
  id: string,
): Promise<{ id: string; watchedBy: number; recordingsKept: number }> {
  let files: (string | null)[] = [];
  const result = await deps.db.transaction().execute(async (trx) => {
    const story = await repo.findStoryRow(trx, id);
    if (!story) throw notFound("Story not found");
    const questions = await repo.listQuestionRows(trx, id);
    const answers = await repo.listAnswerRows(
      trx,
      questions.map((q) => q.id),
    );
    files = [story.video_url, story.thumbnail_path, ...questions.map((q) => q.media_path), ...answers.map((a) => a.audio_path)];
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
  await releaseFiles(deps, files);
  return result;
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
  return listStories(deps);
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
  await releaseFiles(deps, [story.thumbnail_path]);
  return getStory(deps, id);
}

// ─── questions and answers ────────────────────────────────────────────────────────────────────────

export async function listQuestions(deps: ReadDeps, storyId: string): Promise<AdminQuestion[]> {
  if (!(await repo.findStoryRow(deps.db, storyId))) throw notFound("Story not found");
  const questions = await repo.listQuestionRows(deps.db, storyId);
  const answers = await repo.listAnswerRows(
    deps.db,
    questions.map((q) => q.id),
  );
  return questions.map((q) => ({
    id: q.id,
    storyId: q.story_id,
    order: Number(q.position),
    media: signMedia(deps, q.media_path),
    answers: answers
      .filter((a) => a.question_id === q.id)
      .map((a) => ({
        id: a.id,
        questionId: a.question_id,
        characterId: a.character_id,
        characterNameEn: a.name_en,
        characterNameAr: a.name_ar,
        audio: signMedia(deps, a.audio_path),
        order: Number(a.position),
      })),
  }));
}

export async function addQuestion(deps: AppDeps, actor: Actor, storyId: string, given: string): Promise<AdminQuestion[]> {
  if (!(await repo.findStoryRow(deps.db, storyId))) throw notFound("Story not found");
  const media = await privateMediaRef(deps, given, "media");
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
  ).catch(async (error: unknown) => {
    await releaseFiles(deps, [media]);
    throw error;
  });

  return listQuestions(deps, storyId);
}

export async function updateQuestion(deps: AppDeps, actor: Actor, id: string, given: string): Promise<AdminQuestion[]> {
  if (!(await repo.findQuestionRow(deps.db, id))) throw notFound("Question not found");
  const media = await privateMediaRef(deps, given, "media");
  let replaced: string | null = null;
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, id);
    if (!question) throw notFound("Question not found");
    replaced = question.media_path;
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
  await releaseFiles(deps, [replaced]);
  return listQuestions(deps, storyId);
}

export async function deleteQuestion(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  let files: string[] = [];
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, id);
    if (!question) throw notFound("Question not found");
    files = [question.media_path, ...(await repo.listAnswerRows(trx, [question.id])).map((a) => a.audio_path)];
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
  await releaseFiles(deps, files);
  return listQuestions(deps, storyId);
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
  return listQuestions(deps, storyId);
}

export async function addAnswer(
  deps: AppDeps,
  actor: Actor,
  questionId: string,
  given: { characterId: string; audio: string },
): Promise<AdminQuestion[]> {
  if (!(await repo.findQuestionRow(deps.db, questionId))) throw notFound("Question not found");
  const input = { ...given, audio: await privateMediaRef(deps, given.audio, "audio") };
  const storyId = await deps.db
    .transaction()
    .execute(async (trx) => {
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
    })
    .catch(async (error: unknown) => {
      await releaseFiles(deps, [input.audio]);
      throw error;
    });

  return listQuestions(deps, storyId);
}

export async function updateAnswer(
  deps: AppDeps,
  actor: Actor,
  id: string,
  given: { characterId: string; audio: string },
): Promise<AdminQuestion[]> {
  if (!(await repo.findAnswerRow(deps.db, id))) throw notFound("Answer not found");
  const input = { ...given, audio: await privateMediaRef(deps, given.audio, "audio") };
  let replaced: string | null = null;
  const storyId = await deps.db
    .transaction()
    .execute(async (trx) => {
      const answer = await repo.findAnswerRow(trx, id);
      if (!answer) throw notFound("Answer not found");
      replaced = answer.audio_path;
      const question = await repo.findQuestionRow(trx, answer.question_id);
      try {
        await repo.updateAnswerRow(trx, id, { character_id: input.characterId, audio_path: input.audio });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new AppError("validation_failed", "characterId: no such family member");
        throw error;
      }
      await audit(trx, actor, "answer.update", { type: "answer", id }, { characterId: input.characterId, audio: input.audio });
      return question?.story_id ?? "";
    })
    .catch(async (error: unknown) => {
      await releaseFiles(deps, [input.audio]);
      throw error;
    });
  await releaseFiles(deps, [replaced]);
  return listQuestions(deps, storyId);
}

export async function deleteAnswer(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  let removed: string | null = null;
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const answer = await repo.findAnswerRow(trx, id);
    if (!answer) throw notFound("Answer not found");
    removed = answer.audio_path;
    const question = await repo.findQuestionRow(trx, answer.question_id);
    await repo.deleteAnswerRow(trx, id);
    await audit(trx, actor, "answer.delete", { type: "answer", id }, { questionId: answer.question_id });
    return question?.story_id ?? "";
  });
  await releaseFiles(deps, [removed]);
  return listQuestions(deps, storyId);
}
