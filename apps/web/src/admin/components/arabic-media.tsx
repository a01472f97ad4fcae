import type { AdminStory, UploadPurpose, UploadResult } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, uploadTo, useRemoveArabicThumbnail, useSetStoryArabicVideo } from "../api.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { MediaPreview } from "./media-preview.tsx";
import { UploadField } from "./upload-field.tsx";

/**
 * The Arabic file beside an English one: its preview, an upload that adds or replaces it, and removal after a
 * confirmation. Families using Arabic get it; without it they get the English (default) file.
 * A file goes either through the public upload (`purpose`, then `save(path)`) or straight to a route that
 * stores it itself (`url`, a PUT answering what changed, passed to `stored`).
 */
export function ArabicMediaField<T = UploadResult>({
  label,
  kind,
  current,
  fileLabel,
  upload,
  remove,
}: {
  /** Names the Arabic file and what it belongs to, in the operator's language ("Arabic video of Question 2"). */
  label: string;
  kind: "video" | "image";
  current: string | null;
  fileLabel: string;
  upload: { purpose: UploadPurpose; save: (path: string) => Promise<unknown> } | { url: string; stored: (result: T) => unknown };
  remove: () => Promise<unknown>;
}) {
  const { t } = useTranslation("admin");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  return (
    <div className="admin-subcard admin-arabic-media" data-testid="arabic-media">
      <span className="admin-label">{label}</span>
      {current ? (
        <MediaPreview src={current} kind={kind} label={label} />
      ) : (
        <span className="admin-muted">{t("arabicMedia.none")}</span>
      )}
      {"purpose" in upload ? (
        <UploadField<UploadResult>
          label={fileLabel}
          kind={kind}
          url={uploadTo(upload.purpose)}
          onUploaded={async (r) => {
            await upload.save(r.path);
            toast.success(t("arabicMedia.saved"));
          }}
        />
      ) : (
        <UploadField<T>
          label={fileLabel}
          kind={kind}
          method="PUT"
          url={upload.url}
          onUploaded={async (result) => {
            await upload.stored(result);
            toast.success(t("arabicMedia.saved"));
          }}
        />
      )}
      {current && (
        <button
          type="button"
          className="admin-link-button admin-danger-text"
          aria-label={t("arabicMedia.removeTitle", { name: label })}
          onClick={() => setConfirming(true)}
        >
          {t("arabicMedia.remove")}
        </button>
      )}
      <ConfirmDialog
        open={confirming}
        title={t("arabicMedia.removeTitle", { name: label })}
        body={<p>{t("arabicMedia.removeBody")}</p>}
        confirmLabel={t("arabicMedia.remove")}
        danger
        busy={busy}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          setBusy(true);
          try {
            await remove();
            toast.success(t("arabicMedia.removed"));
            setConfirming(false);
          } catch (error) {
            toast.error(errorText(error));
          } finally {
            setBusy(false);
          }
        }}
      />
    </div>
  );
}

/** A story's Arabic video and thumbnail, saved on their own (they do not touch the story form's version). */
export function ArabicStoryMedia({ story }: { story: AdminStory }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const setVideo = useSetStoryArabicVideo();
  const removeThumbnail = useRemoveArabicThumbnail();
  const show = (updated: AdminStory) => client.setQueryData(adminQueries.story(story.id).queryKey, updated);
  const title = `${story.id}-arabic-title`;
  return (
    <section className="admin-card admin-section" aria-labelledby={title}>
      <h2 id={title}>{t("arabicMedia.title")}</h2>
      <p className="admin-muted">{t("arabicMedia.intro")}</p>
      <div className="admin-row">
        <ArabicMediaField
          label={t("arabicMedia.video")}
          kind="video"
          current={story.videoUrlAr}
          fileLabel={t("arabicMedia.videoFile")}
          upload={{
            purpose: "story-video",
            save: async (path) => show(await setVideo.mutateAsync({ id: story.id, videoUrl: path })),
          }}
          remove={async () => show(await setVideo.mutateAsync({ id: story.id, videoUrl: null }))}
        />
        <ArabicMediaField<AdminStory>
          label={t("arabicMedia.thumbnail")}
          kind="image"
          current={story.thumbnailUrlAr}
          fileLabel={t("arabicMedia.thumbnailFile")}
          upload={{
            url: `/api/admin/stories/${story.id}/thumbnail/ar`,
            stored: async (updated) => {
              show(updated);
              await client.invalidateQueries({ queryKey: ["admin", "stories"] });
            },
          }}
          remove={async () => show(await removeThumbnail.mutateAsync(story.id))}
        />
      </div>
    </section>
  );
}
