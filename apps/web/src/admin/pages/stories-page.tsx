import type { AdminStory } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, reorderImpact, useDeleteStory, useReorderStories } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { MoveButtons, RowButton } from "../components/row-actions.tsx";
import { move, thumbnailOf } from "../logic.ts";

const PAGE = 50;
/** "Show all" asks for this many: the server's own cap on one page. */
const ALL = 1000;

/**
 * Stories in program order, drafts after the published ones: search by title, page through, reorder (drag or
 * arrows) once every story is on the page, edit, delete after a confirmation.
 */
export function StoriesPage() {
  const { t } = useTranslation("admin");
  const id = useId();
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  const [limit, setLimit] = useState(PAGE);
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(text.trim());
      setOffset(0);
    }, 300);
    return () => clearTimeout(timer);
  }, [text]);
  const query = useQuery(adminQueries.storyPage(q, offset, limit));
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
      <div className="admin-card admin-toolbar">
        <label htmlFor={id} className="visually-hidden">
          {t("stories.search")}
        </label>
        <input
          id={id}
          type="search"
          className="admin-input"
          maxLength={200}
          placeholder={t("stories.search")}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <QueryView query={query}>
        {({ stories, total }) => {
          if (stories.length === 0)
            return <p className="admin-card admin-muted">{q ? t("stories.searchEmpty", { q }) : t("stories.empty")}</p>;
          const whole = !q && offset === 0 && stories.length >= total;
          return (
            <>
              {!whole && (
                <p className="admin-hint" data-testid="reorder-off">
                  {q ? t("stories.reorderClearSearch") : t("stories.reorderShowAll")}{" "}
                  {!q && (
                    <button
                      type="button"
                      className="admin-link-button"
                      onClick={() => {
                        setOffset(0);
                        setLimit(ALL);
                      }}
                    >
                      {t("stories.showAll", { total })}
                    </button>
                  )}
                </p>
              )}
              <StoryList stories={stories} queryKey={adminQueries.storyPage(q, offset, limit).queryKey} canReorder={whole} />
              {total > stories.length && (
                <div className="admin-pager">
                  <button
                    type="button"
                    className="admin-button admin-button--small"
                    disabled={offset === 0}
                    onClick={() => setOffset(Math.max(0, offset - limit))}
                  >
                    {t("common.previous")}
                  </button>
                  <span className="ltr">
                    {offset + 1}–{offset + stories.length} / {total}
                  </span>
                  <button
                    type="button"
                    className="admin-button admin-button--small"
                    disabled={offset + stories.length >= total}
                    onClick={() => setOffset(offset + limit)}
                  >
                    {t("common.next")}
                  </button>
                </div>
              )}
            </>
          );
        }}
      </QueryView>
    </>
  );
}

interface PendingMove {
  next: AdminStory[];
  affected: number;
}

function StoryList({
  stories,
  queryKey,
  canReorder,
}: {
  stories: AdminStory[];
  queryKey: readonly unknown[];
  canReorder: boolean;
}) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const reorder = useReorderStories();
  const remove = useDeleteStory();
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [pendingDelete, setPendingDelete] = useState<AdminStory | null>(null);
  const [pendingMove, setPendingMove] = useState<PendingMove | null>(null);
  const [checking, setChecking] = useState(false);
  const language = currentLanguage();
  const ar = language === "ar";
  const busy = reorder.isPending || checking;
  const titleOf = (story: AdminStory) => (ar ? story.titleAr : story.titleEn);

  /** Asks the server first how many people the move affects; a move that affects someone waits for a yes. */
  async function propose(next: AdminStory[]) {
    if (next.map((s) => s.id).join() === stories.map((s) => s.id).join()) return;
    setChecking(true);
    try {
      const { affected } = await reorderImpact(next.map((s) => s.id));
      if (affected > 0) setPendingMove({ next, affected });
      else await commit(next);
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setChecking(false);
    }
  }

  async function commit(next: AdminStory[]) {
    const expected = stories.map((s) => s.id);
    const ids = next.map((s) => s.id);
    // Show the new order at once; the server answer (or a reload on conflict) replaces it.
    client.setQueryData(queryKey, (page: { stories: AdminStory[]; total: number } | undefined) =>
      page ? { ...page, stories: next.map((s, i) => ({ ...s, order: i + 1 })) } : page,
    );
    try {
      await reorder.mutateAsync({ ids, expected });
      toast.success(t("stories.reordered"));
    } catch (error) {
      toast.error(error instanceof ApiError && error.code === "conflict" ? t("stories.reorderConflict") : errorText(error));
      await client.invalidateQueries({ queryKey: ["admin", "stories"] });
    }
  }

  return (
    <>
      <ol className="admin-sortable" aria-label={t("stories.title")}>
        {stories.map((story, index) => {
          const title = titleOf(story);
          const thumbnail = thumbnailOf(story, language);
          return (
            <li
              key={story.id}
              className={`admin-sortable__item${dragging === index ? " is-dragging" : ""}${over === index && dragging !== index ? " is-over" : ""}${story.published ? "" : " is-draft"}`}
              draggable={canReorder && !busy}
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
                if (dragging !== null && dragging !== index) void propose(move(stories, dragging, index));
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
              {thumbnail ? (
                <img className="admin-thumb" src={thumbnail} alt="" />
              ) : (
                <span className="admin-thumb admin-thumb--empty">{t("stories.noThumbnail")}</span>
              )}
              <span className="admin-sortable__text">
                <strong>
                  {title}
                  {!story.published && <span className="admin-badge">{t("stories.draft")}</span>}
                </strong>
                <span className="admin-muted">
                  {t("stories.questions", { count: story.questionCount })} · {t("stories.watched", { count: story.watchedCount })}
                </span>
              </span>
              <span className="admin-sortable__actions">
                {canReorder && (
                  <MoveButtons
                    name={title}
                    first={index === 0}
                    last={index === stories.length - 1}
                    disabled={busy}
                    onMove={(delta) => void propose(move(stories, index, index + delta))}
                  />
                )}
                <Link
                  className="admin-button admin-button--small"
                  to={`/admin/stories/${story.id}`}
                  aria-label={`${t("common.edit")}: ${title}`}
                >
                  {t("common.edit")}
                </Link>
                <RowButton action={t("common.delete")} name={title} danger onClick={() => setPendingDelete(story)} />
              </span>
            </li>
          );
        })}
      </ol>
      {stories.some((s) => !s.published) && <p className="admin-hint">{t("stories.draftsHint")}</p>}
      <ConfirmDialog
        open={pendingMove !== null}
        title={t("stories.moveTitle")}
        body={<p data-testid="move-impact">{t("stories.moveBody", { count: pendingMove?.affected ?? 0 })}</p>}
        confirmLabel={t("stories.moveConfirm")}
        busy={reorder.isPending}
        onCancel={() => setPendingMove(null)}
        onConfirm={async () => {
          const next = pendingMove?.next;
          setPendingMove(null);
          if (next) await commit(next);
        }}
      />
      <ConfirmDialog
        open={pendingDelete !== null}
        title={t("stories.deleteTitle", { title: pendingDelete ? titleOf(pendingDelete) : "" })}
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
