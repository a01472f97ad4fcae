import type { ReactNode } from "react";
import { Spinner } from "../../components/spinner.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="admin-page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="admin-muted">{subtitle}</p>}
      </div>
      {actions && <div className="admin-actions">{actions}</div>}
    </header>
  );
}

/** What QueryView reads of a query: a plain one or a paged (infinite) one. */
interface ViewableQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

/** Loading, failure (with a way back in when the session ended) or the data. */
export function QueryView<T>({ query, children }: { query: ViewableQuery<T>; children: (data: T) => ReactNode }) {
  const { t } = useTranslation("admin");
  if (query.isPending)
    return (
      <div className="admin-loading">
        <Spinner />
      </div>
    );
  if (query.isError) {
    const signedOut =
      query.error instanceof ApiError && ["unauthorized", "token_expired", "forbidden"].includes(query.error.code);
    return (
      <div className="admin-card admin-error-card" role="alert">
        <p>{errorText(query.error)}</p>
        {signedOut ? (
          <Link className="admin-button admin-button--primary" to="/admin/login">
            {t("common.signInAgain")}
          </Link>
        ) : (
          <button type="button" className="admin-button" onClick={() => void query.refetch()}>
            {t("common.retry")}
          </button>
        )}
      </div>
    );
  }
  return <>{children(query.data as T)}</>;
}
