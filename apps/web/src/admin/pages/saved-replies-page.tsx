import { SAVED_REPLY_TEXT_MAX, SAVED_REPLY_TITLE_MAX, type SavedReply } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { AdminField } from "../components/admin-field.tsx";
import { DeleteDialog } from "../components/confirm-dialog.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { RowButton } from "../components/row-actions.tsx";
import { savedRepliesQuery, useDeleteReply, useSaveReply } from "../inbox/saved-replies-api.ts";

/** Admins keep the team's saved replies, each in English and Arabic; operators insert them from the composer. */
export function SavedRepliesPage() {
  const { t } = useTranslation("admin");
  const query = useQuery(savedRepliesQuery());
  const [editing, setEditing] = useState<string | null>(null);
  const editingReply = query.data?.find((r) => r.id === editing);
  const [deleting, setDeleting] = useState<SavedReply | null>(null);
  const remove = useDeleteReply();
  return (
    <>
      <PageHeader
        title={t("replies.title")}
        subtitle={t("replies.intro")}
        actions={
          <button type="button" className="admin-button admin-button--primary" onClick={() => setEditing("new")}>
            {t("replies.new")}
          </button>
        }
      />
      {(editing === "new" || editingReply) && (
        <ReplyForm key={editingReply?.id ?? "new"} reply={editingReply} onDone={() => setEditing(null)} />
      )}
      <QueryView query={query}>
        {(replies) =>
          replies.length === 0 ? (
            <p className="admin-card admin-muted">{t("replies.empty")}</p>
          ) : (
            <ul className="admin-cards">
              {replies.map((r) => (
                <li key={r.id} className="admin-card saved-reply" data-testid="saved-reply">
                  <strong>
                    <bdi>{r.title}</bdi>
                  </strong>
                  <p lang="en" dir="ltr" className="saved-reply__text">
                    {r.textEn}
                  </p>
                  <p lang="ar" dir="rtl" className="saved-reply__text">
                    {r.textAr}
                  </p>
                  <div className="admin-actions">
                    <RowButton action={t("common.edit")} name={r.title} onClick={() => setEditing(r.id)} />
                    <RowButton action={t("common.delete")} name={r.title} danger onClick={() => setDeleting(r)} />
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <DeleteDialog
        item={deleting}
        title={t("replies.deleteTitle", { title: deleting?.title ?? "" })}
        body={<p>{t("replies.deleteBody")}</p>}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onDelete={(id) => remove.mutateAsync(id)}
        deleted={t("replies.deleted")}
      />
    </>
  );
}

function ReplyForm({ reply, onDone }: { reply?: SavedReply; onDone: () => void }) {
  const { t } = useTranslation("admin");
  const save = useSaveReply();
  const id = useId();
  const [title, setTitle] = useState(reply?.title ?? "");
  const [textEn, setTextEn] = useState(reply?.textEn ?? "");
  const [textAr, setTextAr] = useState(reply?.textAr ?? "");

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await save.mutateAsync({ id: reply?.id, input: { title, textEn, textAr } });
      toast.success(t("common.saved"));
      onDone();
    } catch (error) {
      toast.error(errorText(error));
    }
  }

  const heading = reply ? t("replies.editTitle") : t("replies.new");
  return (
    <form className="admin-card admin-form" onSubmit={submit} aria-label={heading}>
      <h2>{heading}</h2>
      <AdminField
        id={`${id}-title`}
        label={t("replies.titleField")}
        required
        maxLength={SAVED_REPLY_TITLE_MAX}
        value={title}
        onChange={(e) => setTitle(e.target.value)}
      />
      <div className="admin-grid-2">
        <ReplyText id={`${id}-en`} lang="en" label={t("replies.textEn")} value={textEn} onChange={setTextEn} />
        <ReplyText id={`${id}-ar`} lang="ar" label={t("replies.textAr")} value={textAr} onChange={setTextAr} />
      </div>
      <div className="admin-actions">
        <button type="button" className="admin-button" onClick={onDone}>
          {t("common.cancel")}
        </button>
        <SubmitButton busy={save.isPending}>{t("common.save")}</SubmitButton>
      </div>
    </form>
  );
}

/** One language's text of a reply, written in that language's direction. */
function ReplyText({
  id,
  lang,
  label,
  value,
  onChange,
}: {
  id: string;
  lang: "en" | "ar";
  label: string;
  value: string;
  onChange(value: string): void;
}) {
  return (
    <div className="admin-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="admin-input"
        dir={lang === "ar" ? "rtl" : "ltr"}
        lang={lang}
        rows={4}
        required
        maxLength={SAVED_REPLY_TEXT_MAX}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
