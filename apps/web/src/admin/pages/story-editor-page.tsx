import type { AdminQuestion, AdminStory, UploadResult } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { SubmitButton } from "../../components/submit-button.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import {
  adminQueries,
  uploadTo,
  useAddAnswer,
  useAddQuestion,
  useCreateStory,
  useDeleteAnswer,
  useDeleteQuestion,
  useReorderQuestions,
  useUpdateQuestion,
  useUpdateStory,
} from "../api.ts";
import { CharacterSelect, useCharacterChoice } from "../components/character-select.tsx";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { isExternalVideo, MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { UploadField } from "../components/upload-field.tsx";
import { move } from "../logic.ts";

export function StoryEditorPage() {
  const { id } = useParams();
  const { t } = useTranslation("admin");
  const isNew = !id || id === "new";
  const query = useQuery({ ...adminQueries.story(id ?? "new"), enabled: !isNew });
  return (
    <>
      <Link to="/admin/stories" className="admin-back">
        <span className="icon-directional" aria-hidden="true">
          ←
        </span>{" "}
        {t("story.backToList")}
      </Link>
      {isNew ? (
        <>
          <PageHeader title={t("story.newTitle")} />
          <StoryForm />
        </>
      ) : (
        <QueryView query={query}>
          {(story) => (
            <>
              <PageHeader
                title={t("story.editTitle")}
                subtitle={`#${story.order} · ${currentLanguage() === "ar" ? story.titleAr : story.titleEn}`}
              />
              <StoryForm key={story.id + story.updatedAt} story={story} />
              <ThumbnailSection story={story} />
              <QuestionsSection storyId={story.id} />
            </>
          )}
        </QueryView>
      )}
    </>
  );
}

function StoryForm({ story }: { story?: AdminStory }) {
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const create = useCreateStory();
  const update = useUpdateStory();
  const ids = useId();
  const [titleEn, setTitleEn] = useState(story?.titleEn ?? "");
  const [titleAr, setTitleAr] = useState(story?.titleAr ?? "");
  const [subtitleEn, setSubtitleEn] = useState(story?.subtitleEn ?? "");
  const [subtitleAr, setSubtitleAr] = useState(story?.subtitleAr ?? "");
  const [source, setSource] = useState<"upload" | "external">(story && isExternalVideo(story.videoUrl) ? "external" : "upload");
  const [uploaded, setUploaded] = useState(story && !isExternalVideo(story.videoUrl) ? story.videoUrl : "");
  const [external, setExternal] = useState(story && isExternalVideo(story.videoUrl) ? story.videoUrl : "");
  const videoUrl = source === "upload" ? uploaded : external.trim();
  const [stale, setStale] = useState<AdminStory | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!videoUrl) {
      toast.error(t("story.videoRequired"));
      return;
    }
    const input = { titleEn, titleAr, subtitleEn, subtitleAr, videoUrl };
    try {
      if (story) {
        await update.mutateAsync({ id: story.id, input: { ...input, version: story.version } });
        toast.success(t("story.updated"));
      } else {
        const created = await create.mutateAsync(input);
        toast.success(t("story.created"));
        navigate(`/admin/stories/${created.id}`, { replace: true });
      }
    } catch (error) {
      const current = staleCurrent<AdminStory>(error);
      if (current) return setStale(current);
      toast.error(
        error instanceof ApiError && error.code === "validation_failed"
          ? `${errorText(error)} ${error.message}`
          : errorText(error),
      );
    }
  }

  return (
    <>
      {stale && (
        <StaleNotice
          queryKey={["admin", "stories"]}
          rows={[
            { label: t("story.titleEn"), value: stale.titleEn },
            { label: t("story.titleAr"), value: stale.titleAr },
            { label: t("story.subtitleEn"), value: stale.subtitleEn },
            { label: t("story.subtitleAr"), value: stale.subtitleAr },
          ]}
        />
      )}
      <form className="admin-card admin-form" onSubmit={submit}>
        <div className="admin-grid-2">
          <div className="admin-field">
            <label htmlFor={`${ids}-te`}>{t("story.titleEn")}</label>
            <input
              id={`${ids}-te`}
              className="admin-input"
              dir="ltr"
              lang="en"
              required
              maxLength={200}
              value={titleEn}
              onChange={(e) => setTitleEn(e.target.value)}
            />
          </div>
          <div className="admin-field">
            <label htmlFor={`${ids}-ta`}>{t("story.titleAr")}</label>
            <input
              id={`${ids}-ta`}
              className="admin-input"
              dir="rtl"
              lang="ar"
              required
              maxLength={200}
              value={titleAr}
              onChange={(e) => setTitleAr(e.target.value)}
            />
          </div>
          <div className="admin-field">
            <label htmlFor={`${ids}-se`}>{t("story.subtitleEn")}</label>
            <input
              id={`${ids}-se`}
              className="admin-input"
              dir="ltr"
              lang="en"
              maxLength={400}
              value={subtitleEn}
              onChange={(e) => setSubtitleEn(e.target.value)}
            />
          </div>
          <div className="admin-field">
            <label htmlFor={`${ids}-sa`}>{t("story.subtitleAr")}</label>
            <input
              id={`${ids}-sa`}
              className="admin-input"
              dir="rtl"
              lang="ar"
              maxLength={400}
              value={subtitleAr}
              onChange={(e) => setSubtitleAr(e.target.value)}
            />
          </div>
        </div>
        <fieldset className="admin-fieldset">
          <legend>{t("story.videoSource")}</legend>
          <div className="admin-segmented">
            <label>
              <input type="radio" name={`${ids}-src`} checked={source === "upload"} onChange={() => setSource("upload")} />{" "}
              {t("story.upload")}
            </label>
            <label>
              <input type="radio" name={`${ids}-src`} checked={source === "external"} onChange={() => setSource("external")} />{" "}
              {t("story.external")}
            </label>
          </div>
          {source === "upload" ? (
            <UploadField<UploadResult>
              label={t("story.videoFile")}
              kind="video"
              url={uploadTo("story-video")}
              onUploaded={(r) => setUploaded(r.path)}
            />
          ) : (
            <div className="admin-field">
              <label htmlFor={`${ids}-url`}>{t("story.videoUrl")}</label>
              <input
                id={`${ids}-url`}
                className="admin-input ltr"
                type="url"
                placeholder="https://www.youtube.com/watch?v=…"
                value={external}
                onChange={(e) => setExternal(e.target.value)}
              />
            </div>
          )}
          <div className="admin-preview-box">
            <span className="admin-label">{t("story.preview")}</span>
            <MediaPreview src={videoUrl || null} kind="video" label={t("story.preview")} />
          </div>
        </fieldset>
        <div className="admin-actions">
          <SubmitButton busy={create.isPending || update.isPending}>{story ? t("common.save") : t("story.create")}</SubmitButton>
        </div>
        {!story && <p className="admin-hint">{t("story.thumbnailAfterSave")}</p>}
      </form>
    </>
  );
}

function ThumbnailSection({ story }: { story: AdminStory }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  return (
    <section className="admin-card admin-section" aria-labelledby="thumb-title">
      <h2 id="thumb-title">{t("story.thumbnail")}</h2>
      <div className="admin-row">
        <MediaPreview src={story.thumbnailUrl} kind="image" label={t("story.thumbnail")} />
        <UploadField<AdminStory>
          label={t("story.thumbnailFile")}
          kind="image"
          method="PUT"
          url={`/api/admin/stories/${story.id}/thumbnail`}
          onUploaded={async (updated) => {
            client.setQueryData(adminQueries.story(story.id).queryKey, updated);
            await client.invalidateQueries({ queryKey: ["admin", "stories"] });
            toast.success(t("story.thumbnailSaved"));
          }}
        />
      </div>
    </section>
  );
}

function QuestionsSection({ storyId }: { storyId: string }) {
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
  const remove = useDeleteQuestion(storyId);
  const removeAnswer = useDeleteAnswer(storyId);
  const [confirming, setConfirming] = useState(false);
  const ar = currentLanguage() === "ar";
  const name = t("questions.number", { n: question.order });
  return (
    <li className="admin-question" data-testid="question">
      <div className="admin-question__head">
        <h3>{name}</h3>
        <span className="admin-sortable__actions">
          <button
            type="button"
            className="admin-icon-button"
            aria-label={t("common.moveUp", { name })}
            disabled={first}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="admin-icon-button"
            aria-label={t("common.moveDown", { name })}
            disabled={last}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
          <button
            type="button"
            className="admin-button admin-button--small admin-button--danger-outline"
            onClick={() => setConfirming(true)}
          >
            {t("common.delete")}
          </button>
        </span>
      </div>
      <div className="admin-row">
        <MediaPreview src={question.media} kind="video" label={name} />
        <UploadField<UploadResult>
          label={t("questions.replaceMedia")}
          kind="video"
          url={uploadTo("question-media")}
          onUploaded={async (r) => {
            await update.mutateAsync({ id: question.id, media: r.path });
            toast.success(t("common.saved"));
          }}
        />
      </div>
      <h4>{t("questions.answers")}</h4>
      {question.answers.length === 0 && <p className="admin-muted">{t("questions.noAnswers")}</p>}
      <ul className="admin-answers">
        {question.answers.map((a) => {
          const who = ar ? a.characterNameAr : a.characterNameEn;
          return (
            <li key={a.id} className="admin-answer">
              <strong>{who}</strong>
              <MediaPreview src={a.audio} kind="audio" label={who} />
              <button
                type="button"
                className="admin-link-button admin-danger-text"
                aria-label={t("questions.deleteAnswer", { name: who })}
                onClick={async () => {
                  try {
                    await removeAnswer.mutateAsync(a.id);
                  } catch (error) {
                    toast.error(errorText(error));
                  }
                }}
              >
                {t("common.delete")}
              </button>
            </li>
          );
        })}
      </ul>
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
