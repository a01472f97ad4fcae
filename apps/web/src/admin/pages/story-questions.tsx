import type { AdminAnswer, AdminQuestion, UploadResult } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import {
  adminQueries,
  uploadTo,
  useAddAnswer,
  useAddQuestion,
  useDeleteAnswer,
  useDeleteQuestion,
  useReorderAnswers,
  useReorderQuestions,
  useSetQuestionArabicMedia,
  useUpdateAnswer,
  useUpdateQuestion,
} from "../api.ts";
import { ArabicMediaField } from "../components/arabic-media.tsx";
import { CharacterSelect, useCharacterChoice } from "../components/character-select.tsx";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { QueryView } from "../components/page.tsx";
import { MoveButtons } from "../components/row-actions.tsx";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { TranscriptForm } from "../components/transcript-form.tsx";
import { UploadField } from "../components/upload-field.tsx";
import { move } from "../logic.ts";

/** A story's questions, each with its family members' answers, in the order families hear them. */
export function QuestionsSection({ storyId }: { storyId: string }) {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.questions(storyId));
  const add = useAddQuestion(storyId);
  const reorder = useReorderQuestions(storyId);
  const client = useQueryClient();

  async function commit(questions: AdminQuestion[], next: AdminQuestion[]) {
    try {
      await reorder.mutateAsync({ ids: next.map((q) => q.id), expected: questions.map((q) => q.id) });
    } catch (error) {
      toast.error(errorText(error));
      await client.invalidateQueries({ queryKey: adminQueries.questions(storyId).queryKey });
    }
  }

  return (
    <section className="admin-card admin-section" aria-labelledby="questions-title">
      <h2 id="questions-title">{t("questions.title")}</h2>
      <QueryView query={query}>
        {(questions) => (
          <>
            {questions.length === 0 && <p className="admin-muted">{t("questions.empty")}</p>}
            <ol className="admin-questions">
              {questions.map((q, index) => (
                <QuestionItem
                  key={q.id}
                  storyId={storyId}
                  question={q}
                  first={index === 0}
                  last={index === questions.length - 1}
                  onMove={(delta) => void commit(questions, move(questions, index, index + delta))}
                />
              ))}
            </ol>
          </>
        )}
      </QueryView>
      <div className="admin-subcard">
        <h3>{t("questions.add")}</h3>
        <UploadField<UploadResult>
          label={t("questions.addMedia")}
          kind="video"
          url={uploadTo("question-media")}
          onUploaded={async (r) => {
            try {
              await add.mutateAsync(r.path);
              toast.success(t("questions.added"));
            } catch (error) {
              toast.error(errorText(error));
            }
          }}
        />
      </div>
    </section>
  );
}

/** The last part of a media address, enough to tell two files apart in the "someone else changed it" notice. */
const fileName = (path: string) => path.split("?")[0]?.split("/").at(-1) ?? path;

function QuestionItem({
  storyId,
  question,
  first,
  last,
  onMove,
}: {
  storyId: string;
  question: AdminQuestion;
  first: boolean;
  last: boolean;
  onMove: (delta: number) => void;
}) {
  const { t } = useTranslation("admin");
  const update = useUpdateQuestion(storyId);
  const setArabic = useSetQuestionArabicMedia(storyId);
  const remove = useDeleteQuestion(storyId);
  const [confirming, setConfirming] = useState(false);
  const [stale, setStale] = useState<AdminQuestion | null>(null);
  const ar = currentLanguage() === "ar";
  const name = t("questions.number", { n: question.order });
  return (
    <li className="admin-question" data-testid="question">
      <div className="admin-question__head">
        <h3>{name}</h3>
        <span className="admin-sortable__actions">
          <MoveButtons name={name} first={first} last={last} onMove={onMove} />
          <button
            type="button"
            className="admin-button admin-button--small admin-button--danger-outline"
            onClick={() => setConfirming(true)}
          >
            {t("common.delete")}
          </button>
        </span>
      </div>
      {stale && (
        <StaleNotice
          queryKey={adminQueries.questions(storyId).queryKey}
          rows={[
            { label: t("questions.addMedia"), value: fileName(stale.media) },
            {
              label: t("questions.answers"),
              value:
                stale.answers.map((a) => (ar ? a.characterNameAr : a.characterNameEn)).join("، ") || t("questions.noAnswers"),
            },
          ]}
        />
      )}
      <div className="admin-row">
        <MediaPreview src={question.media} kind="video" label={name} />
        <UploadField<UploadResult>
          label={t("questions.replaceMedia")}
          kind="video"
          url={uploadTo("question-media")}
          onUploaded={async (r) => {
            try {
              // The version this tab shows: a save someone else made since is not overwritten (409).
              await update.mutateAsync({ id: question.id, media: r.path, version: question.version });
              setStale(null);
              toast.success(t("common.saved"));
            } catch (error) {
              const current = staleCurrent<AdminQuestion>(error);
              if (current) setStale(current);
              else toast.error(errorText(error));
            }
          }}
        />
      </div>
      <ArabicMediaField
        label={t("arabicMedia.videoOf", { name })}
        kind="video"
        current={question.mediaAr}
        fileLabel={t("arabicMedia.fileFor", { name })}
        upload={{ purpose: "question-media", save: (path) => setArabic.mutateAsync({ id: question.id, media: path }) }}
        remove={() => setArabic.mutateAsync({ id: question.id, media: null })}
      />
      <TranscriptForm
        transcript={question.transcript}
        version={question.version}
        name={name}
        queryKey={adminQueries.questions(storyId).queryKey}
        save={(transcript) =>
          update.mutateAsync({ id: question.id, media: question.media, transcript, version: question.version })
        }
      />
      <h4>{t("questions.answers")}</h4>
      {question.answers.length === 0 && <p className="admin-muted">{t("questions.noAnswers")}</p>}
      <AnswerList storyId={storyId} question={question} />
      <AddAnswer storyId={storyId} questionId={question.id} />
      <ConfirmDialog
        open={confirming}
        title={t("questions.deleteTitle", { n: question.order })}
        body={<p>{t("questions.deleteBody")}</p>}
        confirmLabel={t("common.delete")}
        danger
        busy={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(question.id);
          } catch (error) {
            toast.error(errorText(error));
          }
          setConfirming(false);
        }}
      />
    </li>
  );
}

/** A question's answers in the order families hear them: move up or down, delete after a confirmation. */
function AnswerList({ storyId, question }: { storyId: string; question: AdminQuestion }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const removeAnswer = useDeleteAnswer(storyId);
  const reorder = useReorderAnswers(storyId);
  const [pendingDelete, setPendingDelete] = useState<AdminAnswer | null>(null);
  const ar = currentLanguage() === "ar";
  const who = (a: AdminAnswer) => (ar ? a.characterNameAr : a.characterNameEn);
  const answers = question.answers;

  async function commit(next: AdminAnswer[]) {
    try {
      await reorder.mutateAsync({
        questionId: question.id,
        input: { ids: next.map((a) => a.id), expected: answers.map((a) => a.id) },
      });
    } catch (error) {
      toast.error(error instanceof ApiError && error.code === "conflict" ? t("questions.answersConflict") : errorText(error));
      await client.invalidateQueries({ queryKey: adminQueries.questions(storyId).queryKey });
    }
  }

  return (
    <>
      <ul className="admin-answers">
        {answers.map((a, index) => (
          <AnswerItem
            key={a.id}
            storyId={storyId}
            answer={a}
            first={index === 0}
            last={index === answers.length - 1}
            busy={reorder.isPending}
            onMove={(delta) => void commit(move(answers, index, index + delta))}
            onDelete={() => setPendingDelete(a)}
          />
        ))}
      </ul>
      <ConfirmDialog
        open={pendingDelete !== null}
        title={t("questions.deleteAnswerTitle", { name: pendingDelete ? who(pendingDelete) : "" })}
        body={<p>{t("questions.deleteAnswerBody")}</p>}
        confirmLabel={t("common.delete")}
        danger
        busy={removeAnswer.isPending}
        onCancel={() => setPendingDelete(null)}
        onConfirm={async () => {
          if (!pendingDelete) return;
          try {
            await removeAnswer.mutateAsync(pendingDelete.id);
          } catch (error) {
            toast.error(errorText(error));
          }
          setPendingDelete(null);
        }}
      />
    </>
  );
}

/** One answer: play it, move it, replace its recording (a versioned save), or delete it. */
function AnswerItem({
  storyId,
  answer,
  first,
  last,
  busy,
  onMove,
  onDelete,
}: {
  storyId: string;
  answer: AdminAnswer;
  first: boolean;
  last: boolean;
  busy: boolean;
  onMove: (delta: number) => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation("admin");
  const update = useUpdateAnswer(storyId);
  const [stale, setStale] = useState<AdminAnswer | null>(null);
  const ar = currentLanguage() === "ar";
  const who = (a: AdminAnswer) => (ar ? a.characterNameAr : a.characterNameEn);
  return (
    <li className="admin-answer" data-testid="answer">
      <strong>{who(answer)}</strong>
      <MediaPreview src={answer.audio} kind="audio" label={who(answer)} />
      <span className="admin-sortable__actions">
        <MoveButtons name={who(answer)} first={first} last={last} disabled={busy} onMove={onMove} />
        <button
          type="button"
          className="admin-link-button admin-danger-text"
          aria-label={t("questions.deleteAnswer", { name: who(answer) })}
          onClick={onDelete}
        >
          {t("common.delete")}
        </button>
      </span>
      <UploadField<UploadResult>
        label={t("questions.replaceAnswer", { name: who(answer) })}
        kind="audio"
        url={uploadTo("audio")}
        onUploaded={async (r) => {
          try {
            await update.mutateAsync({
              id: answer.id,
              input: { characterId: answer.characterId, audio: r.path, version: answer.version },
            });
            setStale(null);
            toast.success(t("common.saved"));
          } catch (error) {
            const current = staleCurrent<AdminAnswer>(error);
            if (current) setStale(current);
            else toast.error(errorText(error));
          }
        }}
      />
      {stale && (
        <StaleNotice
          queryKey={adminQueries.questions(storyId).queryKey}
          rows={[
            { label: t("questions.character"), value: who(stale) },
            { label: t("questions.answerAudio"), value: fileName(stale.audio) },
          ]}
        />
      )}
      <TranscriptForm
        transcript={answer.transcript}
        version={answer.version}
        name={who(answer)}
        queryKey={adminQueries.questions(storyId).queryKey}
        save={(transcript) =>
          update.mutateAsync({
            id: answer.id,
            input: { characterId: answer.characterId, audio: answer.audio, transcript, version: answer.version },
          })
        }
      />
    </li>
  );
}

function AddAnswer({ storyId, questionId }: { storyId: string; questionId: string }) {
  const { t } = useTranslation("admin");
  const add = useAddAnswer(storyId);
  const choice = useCharacterChoice();
  const { characterId } = choice;
  if (choice.characters?.length === 0)
    return (
      <p className="admin-muted">
        {t("questions.noCharacters")} <Link to="/admin/characters">{t("nav.characters")}</Link>
      </p>
    );
  return (
    <div className="admin-subcard">
      <h4>{t("questions.addAnswer")}</h4>
      <div className="admin-row">
        <CharacterSelect choice={choice} />
        <UploadField<UploadResult>
          label={t("questions.answerAudio")}
          kind="audio"
          url={uploadTo("audio")}
          onUploaded={async (r) => {
            if (!characterId) return;
            try {
              await add.mutateAsync({ questionId, characterId, audio: r.path });
              toast.success(t("questions.answerAdded"));
            } catch (error) {
              toast.error(errorText(error));
            }
          }}
        />
      </div>
    </div>
  );
}
