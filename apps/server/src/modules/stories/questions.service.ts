import { randomUUID } from "node:crypto";
import type { AdminQuestion, AnswerInput, ReorderInput, Transcript } from "@hikaya/contracts";
import { isForeignKeyViolation, lostRaceAsConflict, retryLostRace } from "../../db/dialect.ts";
import { StaleSave, savedOrStale } from "../../db/versions.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, conflict, notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { privateMediaRef, releaseFiles, signMedia } from "../storage/story-media.ts";
import * as repo from "./stories.repository.ts";

/**
 * A story's questions and their answers, as the console edits them. Questions and answers carry a `version` like
 * stories: a save naming a stale one is refused with 409 stale_version and the stored question (with its answers).
 * Reorders name the order the editor saw (`expected`) and are refused with 409 when it changed.
 */

type ReadDeps = Pick<AppDeps, "db" | "auth">;

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
    mediaAr: signMedia(deps, q.media_path_ar ?? null),
    transcript: { en: q.transcript_en ?? null, ar: q.transcript_ar ?? null },
    version: Number(q.version ?? 0),
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
        transcript: { en: a.transcript_en ?? null, ar: a.transcript_ar ?? null },
        version: Number(a.version ?? 0),
      })),
  }));
}

export async function addQuestion(deps: AppDeps, actor: Actor, storyId: string, given: string): Promise<AdminQuestion[]> {
  if (!(await repo.findStoryRow(deps.db, storyId))) throw notFound("Story not found");
  const media = await privateMediaRef(deps, given, "media");
  await retryLostRace(() =>
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

/** The stored question (and its answers), for a stale save's 409. */
async function currentQuestion(deps: ReadDeps, id: string): Promise<AdminQuestion | null> {
  const question = await repo.findQuestionRow(deps.db, id);
  if (!question) return null;
  return (await listQuestions(deps, question.story_id)).find((q) => q.id === id) ?? null;
}

export async function updateQuestion(
  deps: AppDeps,
  actor: Actor,
  id: string,
  given: { media: string; transcript?: Transcript | undefined; version?: number | undefined },
): Promise<AdminQuestion[]> {
  if (!(await repo.findQuestionRow(deps.db, id))) throw notFound("Question not found");
  const media = await privateMediaRef(deps, given.media, "media");
  let replaced: string | null = null;
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const question = await repo.findQuestionRow(trx, id);
      if (!question) throw notFound("Question not found");
      const stored = Number(question.version ?? 0);
      // Conditional on the version read: of two saves racing from one version, the second finds 0 rows.
      if (
        (given.version !== undefined && given.version !== stored) ||
        (await repo.updateQuestionMedia(trx, id, media, stored, given.transcript)) === null
      )
        throw new StaleSave();
      // The same file sent back (a save of the words alone) is not a replacement.
      replaced = question.media_path === media ? null : question.media_path;
      await audit(
        trx,
        actor,
        "question.update",
        { type: "question", id },
        { storyId: question.story_id, media: { from: question.media_path, to: media }, ...transcriptAudit(given.transcript) },
      );
      // Read in the save's own transaction, which holds the row: after the commit a later save's version may show.
      return listQuestions({ ...deps, db: trx }, question.story_id);
    });
  const answer = await savedOrStale(save, () => currentQuestion(deps, id)).catch(async (error: unknown) => {
    await releaseFiles(deps, [media]);
    throw error;
  });
  await releaseFiles(deps, [replaced]);
  return answer;
}

export async function deleteQuestion(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  let files: (string | null | undefined)[] = [];
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const question = await repo.findQuestionRow(trx, id);
    if (!question) throw notFound("Question not found");
    files = [
      question.media_path,
      question.media_path_ar,
      ...(await repo.listAnswerRows(trx, [question.id])).map((a) => a.audio_path),
    ];
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
  await lostRaceAsConflict(() =>
    deps.db.transaction().execute(async (trx) => {
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
    }),
  );
  return listQuestions(deps, storyId);
}

export async function addAnswer(
  deps: AppDeps,
  actor: Actor,
  questionId: string,
  given: { characterId: string; audio: string; transcript?: Transcript | undefined },
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
          transcript_en: input.transcript?.en ?? null,
          transcript_ar: input.transcript?.ar ?? null,
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

/** The stored answer, for a stale save's 409. */
async function currentAnswer(deps: ReadDeps, id: string) {
  const answer = await repo.findAnswerRow(deps.db, id);
  if (!answer) return null;
  const question = await currentQuestion(deps, answer.question_id);
  return question?.answers.find((a) => a.id === id) ?? null;
}

/** The answer's columns a save writes: the transcript only when the save names one (left out, it stays). */
const answerValues = (input: { characterId: string; audio: string; transcript?: Transcript | undefined }) => ({
  character_id: input.characterId,
  audio_path: input.audio,
  ...(input.transcript ? { transcript_en: input.transcript.en, transcript_ar: input.transcript.ar } : {}),
});

/** What an audit entry keeps of a transcript: whether each language has words and how many characters, not them. */
const transcriptAudit = (t: Transcript | undefined) =>
  t ? { transcript: { en: t.en?.length ?? null, ar: t.ar?.length ?? null } } : {};

export async function updateAnswer(
  deps: AppDeps,
  actor: Actor,
  id: string,
  given: Omit<AnswerInput, "transcript"> & { transcript?: Transcript | undefined },
): Promise<AdminQuestion[]> {
  if (!(await repo.findAnswerRow(deps.db, id))) throw notFound("Answer not found");
  const input = { ...given, audio: await privateMediaRef(deps, given.audio, "audio") };
  let replaced: string | null = null;
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const answer = await repo.findAnswerRow(trx, id);
      if (!answer) throw notFound("Answer not found");
      const stored = Number(answer.version ?? 0);
      if (given.version !== undefined && given.version !== stored) throw new StaleSave();
      const question = await repo.findQuestionRow(trx, answer.question_id);
      let updated: number | null = null;
      try {
        updated = await repo.updateAnswerRow(trx, id, answerValues(input), stored);
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new AppError("validation_failed", "characterId: no such family member");
        throw error;
      }
      if (updated === null) throw new StaleSave();
      // The same file sent back (a save of the words alone) is not a replacement.
      replaced = answer.audio_path === input.audio ? null : answer.audio_path;
      await audit(
        trx,
        actor,
        "answer.update",
        { type: "answer", id },
        { characterId: input.characterId, audio: input.audio, ...transcriptAudit(input.transcript) },
      );
      return listQuestions({ ...deps, db: trx }, question?.story_id ?? "");
    });
  const answered = await savedOrStale(save, () => currentAnswer(deps, id)).catch(async (error: unknown) => {
    await releaseFiles(deps, [input.audio]);
    throw error;
  });
  await releaseFiles(deps, [replaced]);
  return answered;
}

export async function deleteAnswer(deps: AppDeps, actor: Actor, id: string): Promise<AdminQuestion[]> {
  let removed: string | null = null;
  const storyId = await deps.db.transaction().execute(async (trx) => {
    const answer = await repo.findAnswerRow(trx, id);
    if (!answer) throw notFound("Answer not found");
    removed = answer.audio_path;
    const question = await repo.findQuestionRow(trx, answer.question_id);
    await repo.deleteAnswerRow(trx, answer);
    await audit(trx, actor, "answer.delete", { type: "answer", id }, { questionId: answer.question_id });
    return question?.story_id ?? "";
  });
  await releaseFiles(deps, [removed]);
  return listQuestions(deps, storyId);
}

/** Puts a question's answers in the given order; `expected` is the order the editor saw (409 when it changed). */
export async function reorderAnswers(
  deps: AppDeps,
  actor: Actor,
  questionId: string,
  input: ReorderInput,
): Promise<AdminQuestion[]> {
  const storyId = await lostRaceAsConflict(() =>
    deps.db.transaction().execute(async (trx) => {
      const question = await repo.findQuestionRow(trx, questionId);
      if (!question) throw notFound("Question not found");
      const current = await repo.listAnswerOrder(trx, questionId);
      const currentIds = current.map((a) => a.id);
      if (currentIds.join() !== input.expected.join())
        throw conflict("The answers were changed by someone else; reload and try again");
      if (
        input.ids.length !== currentIds.length ||
        new Set(input.ids).size !== input.ids.length ||
        !input.ids.every((id) => currentIds.includes(id))
      )
        throw badRequest("ids must list every answer of the question exactly once");
      for (const answer of current) {
        if ((await repo.parkAnswer(trx, answer.id, answer.position, input.ids.indexOf(answer.id) + 1)) !== 1)
          throw conflict("The answers were changed by someone else; reload and try again");
      }
      await repo.unparkAnswers(trx, questionId);
      await audit(trx, actor, "answer.reorder", { type: "question", id: questionId }, { from: currentIds, to: input.ids });
      return question.story_id;
    }),
  );
  return listQuestions(deps, storyId);
}
