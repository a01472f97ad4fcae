import { type ReactNode, useEffect, useId, useRef } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";

/** A modal question with a clear consequence; Escape or Cancel closes it. */
export function ConfirmDialog({
  open,
  title,
  body,
  confirmLabel,
  danger,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation("admin");
  const ref = useRef<HTMLDialogElement>(null);
  // One id per dialog: a page may hold several (settings: maintenance and the service-role key).
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="admin-dialog" aria-labelledby={titleId} onCancel={onCancel}>
      <h2 id={titleId}>{title}</h2>
      <div className="admin-dialog__body">{body}</div>
      <div className="admin-dialog__actions">
        <button type="button" className="admin-button" onClick={onCancel}>
          {t("common.cancel")}
        </button>
        <button
          type="button"
          className={`admin-button ${danger ? "admin-button--danger" : "admin-button--primary"}`}
          disabled={busy}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * Asks before deleting one row of a console list, then deletes it: a toast says it went, or why not (with `failed`
 * adding what the list knows, e.g. "still in use"), and the dialog closes either way.
 */
export function DeleteDialog<T extends { id: string }>({
  item,
  title,
  body,
  busy,
  onClose,
  onDelete,
  deleted,
  failed,
}: {
  item: T | null;
  title: string;
  body: ReactNode;
  busy: boolean;
  onClose: () => void;
  onDelete: (id: string) => Promise<unknown>;
  deleted: string;
  failed?: (item: T) => string;
}) {
  const { t } = useTranslation("admin");
  return (
    <ConfirmDialog
      open={item !== null}
      title={title}
      body={body}
      confirmLabel={t("common.delete")}
      danger
      busy={busy}
      onCancel={onClose}
      onConfirm={async () => {
        if (!item) return;
        try {
          await onDelete(item.id);
          toast.success(deleted);
        } catch (error) {
          toast.error(errorText(error) + (failed ? ` ${failed(item)}` : ""));
        }
        onClose();
      }}
    />
  );
}
