import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { consoleApi } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";

/**
 * The service-role key, shown to an admin who asks after a warning. It lives only in this component's
 * state (never in the query cache), so it is gone once they leave the page; each showing is audited.
 */
export function ServiceRoleKeyCard() {
  const { t } = useTranslation("admin");
  const id = useId();
  const [asking, setAsking] = useState(false);
  const [key, setKey] = useState<string | null>(null);
  const show = useMutation({
    mutationFn: () => consoleApi<{ serviceRoleKey: string }>("/admin/service-role-key", { method: "POST" }),
  });

  async function reveal() {
    setAsking(false);
    try {
      setKey((await show.mutateAsync()).serviceRoleKey);
    } catch (error) {
      toast.error(errorText(error));
    }
  }

  async function copy() {
    if (!key) return;
    try {
      await navigator.clipboard.writeText(key);
      toast.success(t("settings.serviceKeyCopied"));
    } catch (error) {
      toast.error(errorText(error));
    }
  }

  return (
    <section className="admin-card admin-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t("settings.serviceKeyTitle")}</h2>
      <p className="admin-hint">{t("settings.serviceKeyIntro")}</p>
      {key ? (
        <>
          <div className="admin-field">
            <label htmlFor={`${id}-key`}>{t("settings.serviceKeyLabel")}</label>
            <textarea
              id={`${id}-key`}
              className="admin-input ltr"
              dir="ltr"
              readOnly
              rows={4}
              value={key}
              onFocus={(e) => e.currentTarget.select()}
            />
          </div>
          <p role="status">{t("settings.serviceKeyShown")}</p>
          <div className="admin-actions">
            <button type="button" className="admin-button" onClick={copy}>
              {t("settings.serviceKeyCopy")}
            </button>
          </div>
        </>
      ) : (
        <div className="admin-actions">
          <button type="button" className="admin-button" disabled={show.isPending} onClick={() => setAsking(true)}>
            {t("settings.serviceKeyShow")}
          </button>
        </div>
      )}
      <ConfirmDialog
        open={asking}
        title={t("settings.serviceKeyConfirmTitle")}
        body={<p>{t("settings.serviceKeyConfirmBody")}</p>}
        confirmLabel={t("settings.serviceKeyConfirm")}
        danger
        busy={show.isPending}
        onCancel={() => setAsking(false)}
        onConfirm={reveal}
      />
    </section>
  );
}
