import { useQueryClient } from "@tanstack/react-query";
import { ApiError } from "../../lib/api-client.ts";
import { useTranslation } from "../../lib/i18n.ts";

/** A stored file as the notice names it: its last path segment, without the cache-busting query; "—" when none. */
export const fileName = (path: string | null | undefined) => (path ? (path.split("?")[0]?.split("/").pop() ?? path) : "—");

/** The stored values a save was refused for (409 `conflict`, `details.reason` "stale_version"), or null. */
export function staleCurrent<T>(error: unknown): T | null {
  if (!(error instanceof ApiError) || error.code !== "conflict") return null;
  const details = error.details as { reason?: unknown; current?: unknown } | undefined;
  return details?.reason === "stale_version" && details.current ? (details.current as T) : null;
}

/**
 * Says that someone else saved first and shows what is stored now; "show the current version" reloads the
 * record, which puts the stored values into the form (the edits made here were not saved).
 */
export function StaleNotice({ rows, queryKey }: { rows: { label: string; value: string }[]; queryKey: readonly unknown[] }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  return (
    <div className="admin-card" role="alert" data-testid="stale-notice">
      <h2>{t("conflict.title")}</h2>
      <p>{t("conflict.body")}</p>
      <dl>
        {rows.map((row) => (
          <div key={row.label}>
            <dt>{row.label}</dt>
            <dd>
              <bdi>{row.value}</bdi>
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" className="admin-button admin-button--primary" onClick={() => client.invalidateQueries({ queryKey })}>
        {t("conflict.reload")}
      </button>
    </div>
  );
}
