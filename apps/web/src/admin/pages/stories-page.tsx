import type { AdminStory } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, useDeleteStory, useReorderStories } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { move } from "../logic.ts";

/** Stories in program order: drag and drop (or the arrow buttons) to reorder, edit, delete. */
export function StoriesPage() {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.stories());
  return (
    <>
      <PageHeader
        title={t("stories.title")}
        subtitle={t("stories.reorderHint")}
        actions={
          <Link className="admin-button admin-button--primary" to="/admin/stories/new">
            {t("stories.new")}
          </Link>
        }
      />
      <QueryView query={query}>{(stories) => <StoryList stories={stories} />}</QueryView>
    </>
  );
}

function StoryList({ stories }: { stories: AdminStory[] }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const reorder = useReorderStories();
  const remove = useDeleteStory();
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [pendingDelete, setPendingDelete] = useState<AdminStory | null>(null);
  const ar = currentLanguage() === "ar";

  async function commit(next: AdminStory[]) {
    const expected = stories.map((s) => s.id);
    const ids = next.map((s) => s.id);
    if (ids.join() === expected.join()) return;
    // Show the new order at once; the server answer (or a reload on conflict) replaces it.
    client.setQueryData(
      adminQueries.stories().queryKey,
      next.map((s, i) => ({ ...s, order: i + 1 })),
    );
    try {
      await reorder.mutateAsync({ ids, expected });
      toast.success(t("stories.reordered"));
    } catch (error) {
      toast.error(error instanceof ApiError && error.code === "conflict" ? t("stories.reorderConflict") : errorText(error));
      await client.invalidateQueries({ queryKey: adminQueries.stories().queryKey });
    }
  }

  if (stories.length === 0) return <p className="admin-card admin-muted">{t("stories.empty")}</p>;
  return (
    <>
      <ol className="admin-sortable" aria-label={t("stories.title")}>
        {stories.map((story, index) => {
          const title = ar ? story.titleAr : story.titleEn;
          return (
            <li
              key={story.id}
              className={`admin-sortable__item${dragging === index ? " is-dragging" : ""}${over === index && dragging !== index ? " is-over" : ""}`}
              draggable={!reorder.isPending}
              data-testid="story-row"
              onDragStart={(e) => {
                e.dataTransfer.effectAllowed = "move";
                e.dataTransfer.setData("text/plain", story.id);
                setDragging(index);
              }}
              onDragOver={(e) => {
                e.preventDefault();
                e.dataTransfer.dropEffect = "move";
                setOver(index);
              }}
              onDragLeave={() => setOver((o) => (o === index ? null : o))}
              onDrop={(e) => {
                e.preventDefault();
                if (dragging !== null && dragging !== index) void commit(move(stories, dragging, index));
                setDragging(null);
                setOver(null);
              }}
              onDragEnd={() => {
                setDragging(null);
                setOver(null);
              }}
            >
              <span className="admin-sortable__handle" aria-hidden="true" title={t("common.dragHandle", { name: title })}>
                ⋮⋮
              </span>
              <span className="admin-order ltr">{story.order}</span>
              {story.thumbnailUrl ? (
                <img className="admin-thumb" src={story.thumbnailUrl} alt="" />
              ) : (
                <span className="admin-thumb admin-thumb--empty">{t("stories.noThumbnail")}</span>
              )}
              <span className="admin-sortable__text">
                <strong>{title}</strong>
                <span className="admin-muted">
                  {t("stories.questions", { count: story.questionCount })} · {t("stories.watched", { count: story.watchedCount })}
                </span>
              </span>
              <span className="admin-sortable__actions">
                <button
                  type="button"
                  className="admin-icon-button"
                  aria-label={t("common.moveUp", { name: title })}
                  disabled={index === 0 || reorder.isPending}
                  onClick={() => void commit(move(stories, index, index - 1))}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="admin-icon-button"
                  aria-label={t("common.moveDown", { name: title })}
                  disabled={index === stories.length - 1 || reorder.isPending}
                  onClick={() => void commit(move(stories, index, index + 1))}
                >
                  ↓
                </button>
                <Link
                  className="admin-button admin-button--small"
                  to={`/admin/stories/${story.id}`}
                  aria-label={`${t("common.edit")}: ${title}`}
                >
                  {t("common.edit")}
                </Link>
                <button
                  type="button"
                  className="admin-button admin-button--small admin-button--danger-outline"
                  aria-label={`${t("common.delete")}: ${title}`}
                  onClick={() => setPendingDelete(story)}
                >
                  {t("common.delete")}
                </button>
              </span>
            </li>
          );
        })}
      </ol>
      <ConfirmDialog
        open={pendingDelete !== null}
        title={t("stories.deleteTitle", { title: pendingDelete ? (ar ? pendingDelete.titleAr : pendingDelete.titleEn) : "" })}
        body={<p>{t("stories.deleteBody")}</p>}
        confirmLabel={t("common.delete")}
        danger
        busy={remove.isPending}
        onCancel={() => setPendingDelete(null)}
        onConfirm={async () => {
          if (!pendingDelete) return;
          try {
            await remove.mutateAsync(pendingDelete.id);
            toast.success(t("stories.deleted"));
          } catch (error) {
            toast.error(errorText(error));
          }
          setPendingDelete(null);
        }}
      />
    </>
  );
}
