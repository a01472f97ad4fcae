import { SEARCH_MAX_LENGTH } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { adminQueries } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { phoneOf } from "../phone.ts";

/** Everyone who signed up, newest first, searchable by phone (local or international form), e-mail or name. */
export function UsersPage() {
  const { t, i18n } = useTranslation("admin");
  const id = useId();
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(text.trim());
      setOffset(0);
    }, 300);
    return () => clearTimeout(timer);
  }, [text]);
  const query = useQuery(adminQueries.users(q, offset));
  return (
    <>
      <PageHeader title={t("users.title")} subtitle={query.data ? t("users.total", { count: query.data.total }) : undefined} />
      <div className="admin-card admin-toolbar">
        <label htmlFor={id} className="visually-hidden">
          {t("users.search")}
        </label>
        <input
          id={id}
          type="search"
          className="admin-input"
          placeholder={t("users.search")}
          value={text}
          maxLength={SEARCH_MAX_LENGTH}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <QueryView query={query}>
        {(list) =>
          list.items.length === 0 ? (
            <p className="admin-card admin-muted">{t("users.none")}</p>
          ) : (
            <>
              <div className="admin-table-wrap">
                <table className="admin-table admin-people">
                  <thead>
                    <tr>
                      <th scope="col">{t("users.name")}</th>
                      <th scope="col">{t("users.contact")}</th>
                      <th scope="col">{t("users.progress")}</th>
                      <th scope="col">{t("users.joined")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.items.map((u) => (
                      <tr key={u.id}>
                        <td>
                          <Link to={`/admin/users/${u.id}`}>{u.name || u.email || phoneOf(u) || u.id.slice(0, 8)}</Link>
                          {u.isAdmin && <span className="admin-badge">{t("users.admin")}</span>}
                          {u.blocked && <span className="admin-badge admin-badge--danger">{t("users.blocked")}</span>}
                        </td>
                        <td className="admin-people__contact">
                          <bdi className="ltr">{phoneOf(u) ?? u.email ?? "—"}</bdi>
                        </td>
                        <td className="admin-people__meta">{t("users.storiesWatched", { count: u.lastWatchedStoryId })}</td>
                        <td className="admin-people__meta">{formatDateTime(u.createdAt, i18n.language)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div className="admin-pager">
                <button
                  type="button"
                  className="admin-button admin-button--small"
                  disabled={offset === 0}
                  onClick={() => setOffset(Math.max(0, offset - 50))}
                >
                  {t("common.previous")}
                </button>
                <span className="ltr">
                  {offset + 1}–{offset + list.items.length} / {list.total}
                </span>
                <button
                  type="button"
                  className="admin-button admin-button--small"
                  disabled={offset + list.items.length >= list.total}
                  onClick={() => setOffset(offset + 50)}
                >
                  {t("common.next")}
                </button>
              </div>
            </>
          )
        }
      </QueryView>
    </>
  );
}
