import type { ReactNode } from "react";
import { LanguageSwitch } from "../components/language-switch.tsx";
import { useTranslation } from "../lib/i18n.ts";
import { Link } from "../lib/router.tsx";
import { useAdminSession } from "./admin-session.ts";

/** Shows the console only to a stored admin token; anyone else gets a clear page with a way to sign in. */
export function AdminGuard({ children }: { children: ReactNode }) {
  const session = useAdminSession();
  if (session.status === "admin") return <>{children}</>;
  return <NotAllowed reason={session.status} />;
}

/** A page for admins only: a facilitator opening it (a bookmark, a typed address) gets a clear refusal. */
export function AdminOnly({ children }: { children: ReactNode }) {
  const { t } = useTranslation("admin");
  const session = useAdminSession();
  if (session.status === "admin" && session.role === "admin") return <>{children}</>;
  return (
    <div className="admin-card admin-card--narrow" role="alert">
      <h1>{t("guard.roleTitle")}</h1>
      <p>{t("guard.roleBody")}</p>
      <Link className="admin-button admin-button--primary" to="/admin/users">
        {t("nav.users")}
      </Link>
    </div>
  );
}

export function NotAllowed({ reason }: { reason: "none" | "not_admin" }) {
  const { t } = useTranslation("admin");
  const title = reason === "not_admin" ? t("guard.notAllowedTitle") : t("guard.signedOutTitle");
  const body = reason === "not_admin" ? t("guard.notAllowedBody") : t("guard.signedOutBody");
  return (
    <main className="admin-center">
      <div className="admin-card admin-card--narrow" role="alert">
        <div className="admin-center__top">
          <span className="admin-badge admin-badge--danger">{reason === "not_admin" ? "403" : "401"}</span>
          <LanguageSwitch />
        </div>
        <h1>{title}</h1>
        <p>{body}</p>
        <div className="admin-actions">
          <Link className="admin-button admin-button--primary" to="/admin/login">
            {t("guard.toAdminLogin")}
          </Link>
          <Link className="admin-button" to="/login">
            {t("guard.toLogin")}
          </Link>
        </div>
      </div>
    </main>
  );
}
