import type { AdminStory, MediaFailure, MediaJobState } from "@hikaya/contracts";
import { useQueries, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, usePublishStory } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { mediaStatusQuery } from "../components/media-job-status.tsx";
import { isExternalVideo } from "../components/media-preview.tsx";

/**
 * What the story's videos' processing means for publishing (the server's rule, stories.service.ts): a failed video
 * blocks it (the server refuses with `video_failed`); one still waiting or processing asks first, since families get
 * the original until the lighter versions are ready.
 */
export type PublishGuard = { failed: MediaFailure } | "processing" | null;

export function publishGuardOf(states: (MediaJobState | null | undefined)[]): PublishGuard {
  const failed = states.find((s) => s?.status === "failed");
  if (failed) return { failed: failed.failure ?? "failed" };
  return states.some((s) => s?.status === "waiting" || s?.status === "processing") ? "processing" : null;
}

const storedVideos = (story: AdminStory) =>
  [story.videoUrl, story.videoUrlAr].filter((v): v is string => Boolean(v) && !isExternalVideo(v as string));

/** Draft or published, with the way to the other state and to the family's-eye preview. */
export function PublishSection({ story }: { story: AdminStory }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const publish = usePublishStory();
  const [confirming, setConfirming] = useState(false);
  const title = currentLanguage() === "ar" ? story.titleAr : story.titleEn;
  const states = useQueries({ queries: storedVideos(story).map((path) => mediaStatusQuery(path)) });
  const guard = publishGuardOf(states.map((s) => s.data));
  const failedText = (failure: MediaFailure) => t("story.videoFailed", { reason: t(`mediaJob.failure.${failure}`) });

  async function change(published: boolean) {
    try {
      const updated = await publish.mutateAsync({ id: story.id, published });
      client.setQueryData(adminQueries.story(story.id).queryKey, updated);
      toast.success(published ? t("story.published") : t("story.unpublished"));
    } catch (error) {
      const details =
        error instanceof ApiError ? (error.details as { reason?: unknown; failure?: unknown } | undefined) : undefined;
      if (error instanceof ApiError && error.code === "video_failed")
        toast.error(failedText((details?.failure as MediaFailure | undefined) ?? "failed"));
      else toast.error(details?.reason === "watched" ? t("story.watchedCannotUnpublish") : errorText(error));
    }
  }

  return (
    <section className="admin-card admin-section admin-publish" aria-labelledby="publish-title">
      <h2 id="publish-title">{t("story.status")}</h2>
      <p data-testid="story-status">{story.published ? t("story.statusPublished") : t("story.statusDraft")}</p>
      {!story.published && guard !== null && guard !== "processing" && (
        <p className="admin-hint" role="alert" data-testid="publish-blocked">
          <span className="admin-badge admin-badge--danger">{t("story.cannotPublish")}</span> {failedText(guard.failed)}
        </p>
      )}
      <div className="admin-actions">
        <Link className="admin-button" to={`/admin/stories/${story.id}/preview`}>
          {t("story.openPreview")}
        </Link>
        {story.published ? (
          <button type="button" className="admin-button" disabled={publish.isPending} onClick={() => void change(false)}>
            {t("story.unpublish")}
          </button>
        ) : (
          <button
            type="button"
            className="admin-button admin-button--primary"
            disabled={publish.isPending}
            onClick={() => setConfirming(true)}
          >
            {t("story.publish")}
          </button>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={t("story.publishTitle", { title })}
        body={
          <>
            <p>{t("story.publishBody")}</p>
            {guard === "processing" && <p data-testid="publish-processing">{t("story.publishWhileProcessing")}</p>}
          </>
        }
        confirmLabel={t("story.publish")}
        busy={publish.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          setConfirming(false);
          await change(true);
        }}
      />
    </section>
  );
}
