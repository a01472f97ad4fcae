import type { AuditEntry } from "@hikaya/contracts";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";
import { auditSentence } from "../audit-sentence.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { LoadMore, SearchBox, useSearch } from "../components/paged-list.tsx";

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

/** Who did what, when: every change made in the console, newest first, as sentences; searchable, a page at a time. */
export function AuditPage() {
  const { t, i18n } = useTranslation("admin");
  const [area, setArea] = useState<(typeof AREAS)[number]>("");
  const search = useSearch();
  const query = useInfiniteQuery(adminQueries.audit(area ? `${area}.` : "", search.q));
  // Keys are built from the action, so they are not among the typed ones.
  const say = (key: string, vars?: Record<string, unknown>) => String(t(key as never, vars as never));
  return (
    <>
      <PageHeader title={t("audit.title")} subtitle={t("audit.intro")} />
      <SearchBox label={t("audit.search")} search={search} />
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
        {(data) => {
          const entries: AuditEntry[] = data.pages.flatMap((p) => p.entries);
          return entries.length === 0 ? (
            <p className="admin-card admin-muted">{t("audit.none")}</p>
          ) : (
            <>
              <div className="admin-table-wrap">
                <table className="admin-table">
                  <thead>
                    <tr>
                      <th scope="col">{t("audit.when")}</th>
                      <th scope="col">{t("audit.what")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((e) => (
                      <tr key={e.id} data-testid="audit-row">
                        <td className="admin-nowrap">{formatDateTime(e.createdAt, i18n.language)}</td>
                        <td>
                          <span data-testid="audit-sentence">{auditSentence(e, i18n.language, say)}</span>
                          {e.actorEmail && e.actorName && (
                            <div className="admin-muted">
                              <bdi className="ltr">{e.actorEmail}</bdi>
                            </div>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <LoadMore query={query} />
            </>
          );
        }}
      </QueryView>
    </>
  );
}
