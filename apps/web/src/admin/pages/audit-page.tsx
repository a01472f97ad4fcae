import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { summarize } from "../logic.ts";

const AREAS = [
  "",
  "story",
  "question",
  "answer",
  "character",
  "landing_answer",
  "instruction",
  "document",
  "settings",
  "contact",
  "conversation",
  "file",
  "person",
  "team",
] as const;

/** Who did what, when: every change made in the console, newest first. */
export function AuditPage() {
  const { t, i18n } = useTranslation("admin");
  const [area, setArea] = useState<(typeof AREAS)[number]>("");
  const query = useQuery(adminQueries.audit(area ? `${area}.` : ""));
  return (
    <>
      <PageHeader title={t("audit.title")} subtitle={t("audit.intro")} />
      <div className="admin-card admin-toolbar">
        <label htmlFor="audit-area">{t("audit.filter")}</label>
        <select
          id="audit-area"
          className="admin-input"
          value={area}
          onChange={(e) => setArea(e.target.value as (typeof AREAS)[number])}
        >
          {AREAS.map((a) => (
            <option key={a} value={a}>
              {t(`audit.areas.${a || "all"}`)}
            </option>
          ))}
        </select>
      </div>
      <QueryView query={query}>
        {(entries) =>
          entries.length === 0 ? (
            <p className="admin-card admin-muted">{t("audit.none")}</p>
          ) : (
            <div className="admin-table-wrap">
              <table className="admin-table">
                <thead>
                  <tr>
                    <th scope="col">{t("audit.when")}</th>
                    <th scope="col">{t("audit.who")}</th>
                    <th scope="col">{t("audit.what")}</th>
                    <th scope="col">{t("audit.details")}</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr key={e.id} data-testid="audit-row">
                      <td>{formatDateTime(e.createdAt, i18n.language)}</td>
                      <td>
                        <bdi className="ltr admin-nowrap">{e.actorEmail ?? e.actorId.slice(0, 8)}</bdi>
                      </td>
                      <td>
                        <strong>{t(`audit.actions.${e.action}`, { defaultValue: e.action })}</strong>
                        {e.targetId && (
                          <div className="admin-code">
                            <bdi className="ltr">{e.targetId.length > 40 ? `${e.targetId.slice(0, 40)}…` : e.targetId}</bdi>
                          </div>
                        )}
                      </td>
                      <td>
                        <code className="admin-code ltr">{summarize(e.details)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </>
  );
}
