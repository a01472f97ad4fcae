import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, useMarkContact } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { LoadMore, SearchBox, useSearch } from "../components/paged-list.tsx";

type Status = "open" | "handled" | "all";

/** The Contact Us inbox: open messages first, searchable, a page at a time; mark each handled (or open again). */
export function ContactPage() {
  const { t, i18n } = useTranslation("admin");
  const [status, setStatus] = useState<Status>("open");
  const search = useSearch();
  const query = useInfiniteQuery(adminQueries.contacts(status, search.q));
  const mark = useMarkContact();
  return (
    <>
      <PageHeader title={t("contact.title")} subtitle={t("contact.intro")} />
      <SearchBox label={t("contact.search")} search={search} />
      <div className="admin-tabs" role="tablist" aria-label={t("contact.filter")}>
        {(["open", "handled", "all"] as const).map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={status === s}
            className="admin-tab"
            onClick={() => setStatus(s)}
          >
            {t(`contact.${s}`)}
          </button>
        ))}
      </div>
      <QueryView query={query}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          return items.length === 0 ? (
            <p className="admin-card admin-muted">{t("contact.none")}</p>
          ) : (
            <>
              <ul className="admin-cards admin-cards--wide">
                {items.map((c) => (
                  <li key={c.id} className={`admin-card admin-message${c.handledAt ? " is-handled" : ""}`}>
                    <div className="admin-message__head">
                      <strong>{c.name}</strong>
                      <span className="admin-muted">{formatDateTime(c.createdAt, i18n.language)}</span>
                    </div>
                    <p className="admin-message__body">{c.message}</p>
                    <p className="admin-muted">
                      {c.phone && <span className="ltr">{c.phone}</span>}
                      {[c.city, c.country, c.gender && t(`users.genders.${c.gender}`, { defaultValue: c.gender })]
                        .filter(Boolean)
                        .map((v) => ` · ${v}`)}
                      {c.userId && (
                        <>
                          {" · "}
                          <Link to={`/admin/users/${c.userId}`}>{t("contact.profile")}</Link>
                        </>
                      )}
                    </p>
                    <div className="admin-actions">
                      {c.handledAt && (
                        <span className="admin-badge">
                          {t("contact.handledOn", { when: formatDateTime(c.handledAt, i18n.language) })}
                        </span>
                      )}
                      <button
                        type="button"
                        className={`admin-button admin-button--small${c.handledAt ? "" : " admin-button--primary"}`}
                        disabled={mark.isPending}
                        onClick={async () => {
                          try {
                            await mark.mutateAsync({ id: c.id, handled: !c.handledAt });
                            toast.success(c.handledAt ? t("contact.reopened") : t("contact.markedHandled"));
                          } catch (error) {
                            toast.error(errorText(error));
                          }
                        }}
                      >
                        {c.handledAt ? t("contact.reopen") : t("contact.markHandled")}
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
              <LoadMore query={query} />
            </>
          );
        }}
      </QueryView>
    </>
  );
}
