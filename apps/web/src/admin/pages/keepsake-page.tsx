import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { KeepsakeBook, type PageSize } from "../../components/keepsake-book.tsx";
import { useLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link, useParams } from "../../lib/router.tsx";
import { adminQueries } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { FamilyMessagesList } from "./family-messages-list.tsx";
import "./keepsake-page.css";

/**
 * /admin/users/:id/keepsake: a person's keepsake as their family would print it, for programs that print and mail
 * books. The same book as the family's /keepsake (components/keepsake-book.tsx), read-only; each opening is audited.
 */
export function ConsoleKeepsakePage() {
  const { id = "" } = useParams();
  const { t } = useTranslation("admin");
  const language = useLanguage();
  const [size, setSize] = useState<PageSize>("A5");
  const keepsake = useQuery(adminQueries.keepsake(id, language));
  return (
    <div className="admin-keepsake">
      <div className="admin-keepsake__tools">
        <Link to={`/admin/users/${id}`} className="admin-back">
          <span className="icon-directional" aria-hidden="true">
            ←
          </span>{" "}
          {t("keepsake.back")}
        </Link>
        <PageHeader
          title={t("keepsake.title")}
          subtitle={t("keepsake.intro")}
          actions={
            <>
              <label htmlFor="keepsake-size">{t("keepsake.size")}</label>
              <select
                id="keepsake-size"
                className="admin-input"
                value={size}
                onChange={(e) => setSize(e.currentTarget.value as PageSize)}
              >
                <option value="A5">A5</option>
                <option value="A4">A4</option>
              </select>
              <button
                type="button"
                className="admin-button admin-button--primary"
                disabled={!keepsake.data}
                onClick={() => window.print()}
              >
                {t("keepsake.print")}
              </button>
            </>
          }
        />
      </div>
      <QueryView query={keepsake}>
        {(k) =>
          k.hasRecordings ? (
            <KeepsakeBook keepsake={k} title={k.title} dedication={k.dedication} size={size} reader="operator" />
          ) : (
            <p className="admin-card admin-muted">{t("keepsake.empty")}</p>
          )
        }
      </QueryView>
      <FamilyMessagesList userId={id} />
    </div>
  );
}
