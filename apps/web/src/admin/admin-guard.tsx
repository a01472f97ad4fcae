import { type ReactNode, useRef } from "react";
import { LanguageSwitch } from "../components/language-switch.tsx";
import { useTranslation } from "../lib/i18n.ts";
import { Link } from "../lib/router.tsx";
import { useAdminSession } from "./admin-session.ts";
import { SecondFactorPrompt, useSecondFactorNeeded } from "./second-factor.tsx";

/**
 * Shows the console only to a stored admin token; anyone else gets a clear page with a way to sign in. A console
 * that was open when its session ended (a role change or a block ends every session, found out by the live stream or
 * the next request) says so, instead of leaving a page that fails only on the next reply. An operator whose session
 * has not passed their authenticator factor is asked for its code (second-factor.tsx).
 */
export function AdminGuard({ children }: { children: ReactNode }) {
  const session = useAdminSession();
  const secondFactor = useSecondFactorNeeded();
  const wasIn = useRef(false);
  if (session.status === "admin") {
    wasIn.current = true;
    return secondFactor ? <SecondFactorPrompt /> : children;
  }
  return <NotAllowed reason={session.status === "none" && wasIn.current ? "expired" : session.status} />;
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

export function NotAllowed({ reason }: { reason: "none" | "not_admin" | "expired" }) {
  const { t } = useTranslation("admin");
  const key = reason === "not_admin" ? "notAllowed" : reason === "expired" ? "expired" : "signedOut";
  const title = t(`guard.${key}Title`);
  const body = t(`guard.${key}Body`);
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
