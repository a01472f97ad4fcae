import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";

/** Every SMS and WhatsApp message the default provider wrote instead of sending (one-time codes and reminders). */
export function OutboxPage() {
  const { t, i18n } = useTranslation("admin");
  const id = useId();
  const [text, setText] = useState("");
  const [recipient, setRecipient] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setRecipient(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text]);
  const query = useQuery({ ...adminQueries.outbox(recipient), refetchInterval: 15_000 });
  return (
    <>
      <PageHeader title={t("outbox.title")} subtitle={t("outbox.intro")} />
      <div className="admin-card admin-toolbar">
        <label htmlFor={id} className="visually-hidden">
          {t("outbox.search")}
        </label>
        <input
          id={id}
          type="search"
          className="admin-input ltr"
          placeholder={t("outbox.search")}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <QueryView query={query}>
        {({ messages }) =>
          messages.length === 0 ? (
            <p className="admin-card admin-muted">{t("outbox.none")}</p>
          ) : (
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
          )
        }
      </QueryView>
    </>
  );
}
