import type { AdminUserDetail } from "@hikaya/contracts";
import { useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useAdminSession } from "../admin-session.ts";
import { usePersonActions } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";

type Pending = "block" | "reset" | "delete" | null;

/**
 * What the console can do for one person: open their conversation (everyone in the console), and for admins block
 * or unblock, send a password-reset code, delete the account. Each destructive action asks first.
 */
export function PersonActions({ id, who, account }: { id: string; who: string; account: AdminUserDetail["account"] }) {
  const { t } = useTranslation("admin");
  const session = useAdminSession();
  const navigate = useNavigate();
  const { setBlocked, sendResetCode, remove } = usePersonActions(id);
  const [pending, setPending] = useState<Pending>(null);
  const isAdmin = session.status === "admin" && session.role === "admin";
  const isSelf = session.status === "admin" && session.userId === id;
  const canAct = isAdmin && !isSelf && account.operatorRole === null;

  async function run(action: () => Promise<unknown>, done: string) {
    try {
      await action();
      toast.success(done);
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setPending(null);
    }
  }

  const dialogs = {
    block: { title: t("people.blockTitle"), body: t("people.blockBody", { who }), label: t("people.block") },
    reset: { title: t("people.resetTitle"), body: t("people.resetBody", { who }), label: t("people.sendReset") },
    delete: { title: t("people.deleteTitle"), body: t("people.deleteBody", { who }), label: t("people.delete") },
  } as const;
  const dialog = pending ? dialogs[pending] : null;

  return (
    <section className="admin-card admin-section" aria-labelledby="person-actions">
      <h2 id="person-actions">{t("people.actions")}</h2>
      {account.blocked && (
        <p className="admin-muted" role="status">
          <span className="admin-badge admin-badge--danger">{t("users.blocked")}</span> {t("people.blockedNote")}
        </p>
      )}
      {account.operatorRole && isAdmin && !isSelf && <p className="admin-muted">{t("people.operatorNote")}</p>}
      <div className="admin-actions">
        <Link className="admin-button" to={`/admin/inbox/${id}`}>
          {t("people.openConversation")}
        </Link>
        {canAct &&
          (account.blocked ? (
            <button
              type="button"
              className="admin-button"
              disabled={setBlocked.isPending}
              onClick={() => void run(() => setBlocked.mutateAsync(false), t("people.unblocked"))}
            >
              {t("people.unblock")}
            </button>
          ) : (
            <button type="button" className="admin-button admin-button--danger" onClick={() => setPending("block")}>
              {t("people.block")}
            </button>
          ))}
        {canAct && (
          <button
            type="button"
            className="admin-button"
            disabled={account.internationalPhone === null}
            title={account.internationalPhone === null ? t("people.noPhone") : undefined}
            onClick={() => setPending("reset")}
          >
            {t("people.sendReset")}
          </button>
        )}
        {canAct && (
          <button type="button" className="admin-button admin-button--danger" onClick={() => setPending("delete")}>
            {t("people.delete")}
          </button>
        )}
      </div>
      <ConfirmDialog
        open={dialog !== null}
        title={dialog?.title ?? ""}
        body={dialog?.body ?? ""}
        confirmLabel={dialog?.label ?? ""}
        danger={pending !== "reset"}
        busy={setBlocked.isPending || sendResetCode.isPending || remove.isPending}
        onConfirm={() => {
          if (pending === "block") void run(() => setBlocked.mutateAsync(true), t("people.blocked"));
          if (pending === "reset") void run(() => sendResetCode.mutateAsync(), t("people.resetSent"));
          if (pending === "delete")
            void run(async () => {
              await remove.mutateAsync();
              navigate("/admin/users", { replace: true });
            }, t("people.deleted"));
        }}
        onCancel={() => setPending(null)}
      />
    </section>
  );
}
