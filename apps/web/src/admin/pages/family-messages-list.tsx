import type { FamilyMessage } from "@hikaya/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";
import { adminQueries, consoleApi } from "../api.ts";
import { DeleteDialog } from "../components/confirm-dialog.tsx";
import { MediaPreview } from "../components/media-preview.tsx";
import { QueryView } from "../components/page.tsx";
import { RowButton } from "../components/row-actions.tsx";

/**
 * Under a person's keepsake: what relatives left through the family's links, so an operator can remove abuse
 * (the message and its recording go; the audit log keeps that it was removed, not what it said).
 */
export function FamilyMessagesList({ userId }: { userId: string }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const list = useQuery(adminQueries.familyMessages(userId));
  const [deleting, setDeleting] = useState<FamilyMessage | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) =>
      consoleApi<null>(`/keepsake/people/${encodeURIComponent(userId)}/family-messages/${encodeURIComponent(id)}`, {
        method: "DELETE",
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: adminQueries.familyMessages(userId).queryKey }),
  });
  return (
    <section className="admin-card admin-keepsake__family" aria-labelledby="family-messages-title">
      <h2 id="family-messages-title">{t("keepsake.familyTitle")}</h2>
      <p className="admin-muted">{t("keepsake.familyIntro")}</p>
      <QueryView query={list}>
        {(data) =>
          data.messages.length === 0 ? (
            <p className="admin-muted">{t("keepsake.familyEmpty")}</p>
          ) : (
            <ul className="admin-cards">
              {data.messages.map((m) => (
                <li key={m.id} className="admin-card" data-testid="family-message">
                  <div>
                    <strong>{m.name}</strong>{" "}
                    <span className="admin-muted">
                      {t(m.kind === "question" ? "keepsake.familyQuestion" : "keepsake.familyReply")}
                    </span>
                    {m.text ? (
                      <p className="admin-keepsake__text" dir="auto">
                        {m.text}
                      </p>
                    ) : null}
                  </div>
                  {m.audio ? <MediaPreview src={m.audio} kind="audio" label={m.name} /> : null}
                  <div className="admin-actions">
                    <RowButton action={t("common.delete")} name={m.name} danger onClick={() => setDeleting(m)} />
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <DeleteDialog
        item={deleting}
        title={t("keepsake.familyDeleteTitle", { name: deleting?.name ?? "" })}
        body={<p>{t("keepsake.familyDeleteBody")}</p>}
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onDelete={(id) => remove.mutateAsync(id)}
        deleted={t("keepsake.familyDeleted")}
      />
    </section>
  );
}
