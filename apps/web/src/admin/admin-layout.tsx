import { useQuery } from "@tanstack/react-query";
import { useCallback, useId, useState } from "react";
import { LanguageSwitch } from "../components/language-switch.tsx";
import { useTranslation } from "../lib/i18n.ts";
import { Link, NavLink, Outlet, useLocation, useNavigate } from "../lib/router.tsx";
import { consoleSession, useAdminSession } from "./admin-session.ts";
import { DevicePushSwitch } from "./components/device-push-switch.tsx";
import { DisplayNameForm } from "./components/display-name-form.tsx";
import { inboxQueries } from "./inbox/inbox-api.ts";
import { useInboxAlerts } from "./inbox-alerts.ts";
import { useInboxBadge } from "./waiting-count.ts";

export interface NavItem {
  to: string;
  label: string;
  /** "waiting": show how many conversations wait for a reply beside the link. */
  count?: "waiting";
}

/**
 * The console's frame: a side navigation on a laptop, a top bar with a drawer on a phone. Logical CSS
 * only, so Arabic mirrors it.
 */
export function AdminLayout({ extraNav = [] }: { extraNav?: NavItem[] }) {
  const { t } = useTranslation("admin");
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const session = useAdminSession();
  const hasInbox = session.status === "admin" && extraNav.some((item) => item.count === "waiting");
  const { count: waiting, unread } = useInboxBadge(hasInbox);
  const openPath = useCallback((path: string) => navigate(path), [navigate]);
  useInboxAlerts(hasInbox && session.status === "admin" ? session.userId : null, unread, openPath);

  // A tapped link closes the drawer.
  const [shownPath, setShownPath] = useState(location.pathname);
  if (shownPath !== location.pathname) {
    setShownPath(location.pathname);
    setOpen(false);
  }

  const allItems: NavItem[] = [
    { to: "/admin/stories", label: t("nav.stories") },
    { to: "/admin/characters", label: t("nav.characters") },
    { to: "/admin/media", label: t("nav.media") },
    { to: "/admin/settings", label: t("nav.settings") },
    ...extraNav,
    { to: "/admin/replies", label: t("nav.replies") },
    { to: "/admin/reminders", label: t("nav.reminders") },
    { to: "/admin/users", label: t("nav.users") },
    { to: "/admin/contact", label: t("nav.contact") },
    { to: "/admin/outbox", label: t("nav.outbox") },
    { to: "/admin/analytics", label: t("nav.analytics") },
    { to: "/admin/audit", label: t("nav.audit") },
    { to: "/admin/team", label: t("nav.team") },
  ];
  // Facilitators see only the inbox and people; the server refuses them everything else anyway.
  const role = session.status === "admin" ? session.role : null;
  const items = role === "admin" ? allItems : allItems.filter((item) => item.count === "waiting" || item.to === "/admin/users");

  async function signOut() {
    await consoleSession.signOut();
    navigate("/admin/login");
  }

  return (
    <div className="admin" data-nav-open={open}>
      <header className="admin-topbar">
        <button
          type="button"
          className="admin-icon-button"
          aria-expanded={open}
          aria-controls="admin-nav"
          aria-label={open ? t("nav.closeMenu") : t("nav.openMenu")}
          onClick={() => setOpen((v) => !v)}
        >
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path
              d={open ? "M6 6l12 12M18 6L6 18" : "M4 7h16M4 12h16M4 17h16"}
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
            />
          </svg>
        </button>
        <span className="admin-topbar__title">{t("title")}</span>
        <LanguageSwitch />
      </header>
      <nav id="admin-nav" className="admin-nav" aria-label={t("nav.label")}>
        <div className="admin-nav__brand">
          <span className="admin-nav__logo" aria-hidden="true">
            ح
          </span>
          <span>{t("title")}</span>
        </div>
        <ul>
          {items.map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} className={({ isActive }) => `admin-nav__link${isActive ? " is-active" : ""}`}>
                {item.label}
                {item.count === "waiting" && waiting > 0 && (
                  <span className="admin-nav__count" data-testid="waiting-count">
                    <span aria-hidden="true">{waiting}</span>
                    <span className="visually-hidden">{t("nav.waiting", { count: waiting })}</span>
                  </span>
                )}
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="admin-nav__footer">
          {session.status === "admin" && session.email && (
            <span className="admin-nav__who">
              {t("nav.signedInAs")} <bdi className="ltr">{session.email}</bdi>
            </span>
          )}
          {session.status === "admin" && <OwnName me={session.userId} />}
          {hasInbox && session.status === "admin" && <DevicePushSwitch me={session.userId} />}
          <div className="admin-nav__row">
            <LanguageSwitch className="admin-nav__lang" />
            <Link to="/" className="admin-link" target="_blank" rel="noreferrer">
              {t("nav.openApp")}
            </Link>
          </div>
          <button type="button" className="admin-button admin-button--block" onClick={() => void signOut()}>
            {t("nav.signOut")}
          </button>
        </div>
      </nav>
      {open && <button type="button" className="admin-scrim" aria-label={t("nav.closeMenu")} onClick={() => setOpen(false)} />}
      <main className="admin-main" id="admin-main">
        <Outlet />
      </main>
    </div>
  );
}

/** "Your name": every operator names themselves from their own menu (colleagues see it; families never do). */
function OwnName({ me }: { me: string }) {
  const { t } = useTranslation("admin");
  const [open, setOpen] = useState(false);
  const panel = useId();
  const operators = useQuery({ ...inboxQueries.operators(), enabled: open });
  const current = operators.data?.find((o) => o.userId === me)?.name ?? null;
  return (
    <div className="admin-nav__name">
      <button
        type="button"
        className="admin-link admin-nav__name-toggle"
        aria-expanded={open}
        aria-controls={panel}
        onClick={() => setOpen((v) => !v)}
      >
        {t("nav.yourName")}
      </button>
      <div id={panel} hidden={!open}>
        {open && operators.isSuccess && <DisplayNameForm className="admin-nav__name-form" current={current} />}
      </div>
    </div>
  );
}
