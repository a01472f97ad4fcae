import { useInfiniteQuery } from "@tanstack/react-query";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { LoadMore, SearchBox, useSearch } from "../components/paged-list.tsx";

/**
 * Every SMS and WhatsApp message the default provider wrote instead of sending (one-time codes and reminders):
 * searchable by phone or text, a page at a time.
 */
export function OutboxPage() {
  const { t, i18n } = useTranslation("admin");
  const search = useSearch();
  const query = useInfiniteQuery({ ...adminQueries.outbox(search.q), refetchInterval: 15_000 });
  return (
    <>
      <PageHeader title={t("outbox.title")} subtitle={t("outbox.intro")} />
      <SearchBox label={t("outbox.search")} search={search} />
      <QueryView query={query}>
        {(data) => {
          const messages = data.pages.flatMap((p) => p.messages);
          return messages.length === 0 ? (
            <p className="admin-card admin-muted">{t("outbox.none")}</p>
          ) : (
            <>
              <div className="admin-table-wrap">
                <table className="admin-table">
                  <thead>
                    <tr>
                      <th scope="col">{t("outbox.when")}</th>
                      <th scope="col">{t("outbox.channel")}</th>
                      <th scope="col">{t("outbox.to")}</th>
                      <th scope="col">{t("outbox.message")}</th>
                      <th scope="col">{t("outbox.status")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {messages.map((m) => (
                      <tr key={m.id}>
                        <td>{formatDateTime(m.createdAt, i18n.language)}</td>
                        <td>
                          <span className={`admin-badge admin-badge--${m.channel}`}>{t(`outbox.channels.${m.channel}`)}</span>
                        </td>
                        <td>
                          <bdi className="ltr">{m.recipient}</bdi>
                        </td>
                        <td className="admin-table__message">{m.body}</td>
                        <td>
                          {t(`outbox.statuses.${m.status}` as "outbox.statuses.sent", { defaultValue: m.status })}
                          {m.error && <span className="admin-error"> {m.error}</span>}
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
