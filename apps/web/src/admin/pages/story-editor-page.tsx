import type { AdminStory, UploadResult } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, uploadTo, useCreateStory, useUpdateStory } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";
import { ArabicStoryMedia } from "../components/arabic-media.tsx";
import { CaptionsEditor } from "../components/captions-editor.tsx";
import { MediaJobStatus } from "../components/media-job-status.tsx";
import { isExternalVideo, MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { UploadField } from "../components/upload-field.tsx";
import { useSaveErrorText } from "../components/validation.ts";
import { PublishSection } from "./story-publish.tsx";
import { QuestionsSection } from "./story-questions.tsx";

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
              <PublishSection story={story} />
              <StoryForm key={story.id + story.updatedAt} story={story} />
              <CaptionsSection story={story} />
              <ThumbnailSection story={story} />
              <ArabicStoryMedia story={story} />
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
  const saveErrorText = useSaveErrorText();

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
        // A new story starts as a draft: families see it once it is published (PublishSection).
        const created = await create.mutateAsync({ ...input, published: false });
        toast.success(t("story.created"));
        navigate(`/admin/stories/${created.id}`, { replace: true });
      }
    } catch (error) {
      const current = staleCurrent<AdminStory>(error);
      if (current) return setStale(current);
      toast.error(
        saveErrorText(error, {
          titleEn: t("story.titleEn"),
          titleAr: t("story.titleAr"),
          subtitleEn: t("story.subtitleEn"),
          subtitleAr: t("story.subtitleAr"),
          videoUrl: t("story.videoSource"),
        }),
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
          <AdminField
            id={`${ids}-te`}
            label={t("story.titleEn")}
            dir="ltr"
            lang="en"
            required
            maxLength={200}
            value={titleEn}
            onChange={(e) => setTitleEn(e.target.value)}
          />
          <AdminField
            id={`${ids}-ta`}
            label={t("story.titleAr")}
            dir="rtl"
            lang="ar"
            required
            maxLength={200}
            value={titleAr}
            onChange={(e) => setTitleAr(e.target.value)}
          />
          <AdminField
            id={`${ids}-se`}
            label={t("story.subtitleEn")}
            dir="ltr"
            lang="en"
            maxLength={400}
            value={subtitleEn}
            onChange={(e) => setSubtitleEn(e.target.value)}
          />
          <AdminField
            id={`${ids}-sa`}
            label={t("story.subtitleAr")}
            dir="rtl"
            lang="ar"
            maxLength={400}
            value={subtitleAr}
            onChange={(e) => setSubtitleAr(e.target.value)}
          />
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
            <AdminField
              id={`${ids}-url`}
              label={t("story.videoUrl")}
              className="ltr"
              type="url"
              placeholder="https://www.youtube.com/watch?v=…"
              value={external}
              onChange={(e) => setExternal(e.target.value)}
            />
          )}
          <div className="admin-preview-box">
            <span className="admin-label">{t("story.preview")}</span>
            <MediaPreview src={videoUrl || null} kind="video" label={t("story.preview")} />
          </div>
          {story && !isExternalVideo(story.videoUrl) && <MediaJobStatus path={story.videoUrl} />}
        </fieldset>
        <div className="admin-actions">
          <SubmitButton busy={create.isPending || update.isPending}>{story ? t("common.save") : t("story.create")}</SubmitButton>
        </div>
        {!story && <p className="admin-hint">{t("story.thumbnailAfterSave")}</p>}
      </form>
    </>
  );
}

/** Captions for each stored video of the story (the English one and, when there is one, the Arabic one). */
function CaptionsSection({ story }: { story: AdminStory }) {
  const { t } = useTranslation("admin");
  const videos = [
    { src: story.videoUrl, name: t("captions.videoEn") },
    { src: story.videoUrlAr, name: t("captions.videoAr") },
  ].filter((v): v is { src: string; name: string } => Boolean(v.src) && !isExternalVideo(v.src as string));
  if (videos.length === 0) return null;
  return (
    <section className="admin-card admin-section" aria-labelledby="captions-title">
      <h2 id="captions-title">{t("captions.title")}</h2>
      <p className="admin-hint">{t("captions.hint")}</p>
      {videos.map((v) => (
        <CaptionsEditor key={v.src.split("?")[0]} src={v.src} videoName={v.name} />
      ))}
    </section>
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
