import { MENU_FADE_MS, MESSAGE_CENTER_MIN_WATCHED } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { api } from "../lib/api-client.ts";
import { signOut } from "../lib/auth.ts";
import { familyMessagesQuery, useFamilyMessages } from "../lib/family-messages.ts";
import { currentLanguage, useTranslation } from "../lib/i18n.ts";
import { promptInstall } from "../lib/install-prompt.ts";
import { useMe } from "../lib/me.ts";
import { Outlet, useLocation, useNavigate } from "../lib/router.tsx";
import { useSettings } from "../lib/settings.ts";
import { shareSite } from "../lib/share.ts";
import { toast } from "../lib/toast.tsx";
import { unreadQuery, useUnreadMessages } from "../lib/unread.ts";
import { LanguageSwitch } from "./language-switch.tsx";
import { useRequireUser } from "./require-user.ts";
import "./app-chrome.css";

/** The product title from the site settings, in the person's language. */
export function useProductTitle(): string {
  const { t } = useTranslation();
  const { data } = useSettings();
  return data?.title[currentLanguage()] || t("productTitle");
}

/** Share the site: Web Share API, else copy the link (spec section 2). */
export function useShareSite() {
  const { t } = useTranslation("stories");
  const { t: tc } = useTranslation();
  const title = useProductTitle();
  return useCallback(async () => {
    const result = await shareSite(title);
    if (result === "copied") toast.success(t("menu.linkCopied"));
    else if (result === "failed") toast.error(tc("errors.unknown"));
  }, [title, t, tc]);
}

type MenuState = "closed" | "open" | "closing";

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

const ICONS = {
  menu: "M4 7h16M4 12h16M4 17h16",
  close: "M6 6l12 12M18 6L6 18",
  chat: "M4 5h16v11H9l-5 4z",
  stories: "M4 5h7v14H4zM13 5h7v14h-7z",
  share: "M12 15V3M7 8l5-5 5 5M5 13v7h14v-7",
  install: "M12 3v12M7 10l5 5 5-5M5 20h14",
  contact: "M4 6h16v12H4zM4 7l8 6 8-6",
  logout: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10",
  profile: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 20c1.5-4 4.5-6 8-6s6.5 2 8 6",
  keepsake: "M5 4h11a3 3 0 0 1 3 3v13H8a3 3 0 0 1-3-3zM5 17a3 3 0 0 1 3-3h11",
  family: "M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3 20a6 6 0 0 1 12 0M16 5a3 3 0 0 1 0 6M17 14.5a6 6 0 0 1 4 5.5",
};

function MenuOverlay({ state, onClose }: { state: MenuState; onClose: () => void }) {
  const { t } = useTranslation("stories");
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const me = useMe();
  const share = useShareSite();
  const title = useProductTitle();
  const panel = useRef<HTMLDivElement>(null);
  const watched = me.data?.watchedStories?.length ?? 0;
  const unread = useUnreadMessages(watched > MESSAGE_CENTER_MIN_WATCHED);
  const family = useFamilyMessages(me.isSuccess);
  const hasRecording = useQuery({
    queryKey: ["recordings", "any"],
    queryFn: ({ signal }) => api<unknown[]>("/recordings", { signal }).then((list) => list.length > 0),
    enabled: me.isSuccess,
  });

  useEffect(() => {
    if (state !== "open") return;
    // The count is fresh each time the menu opens (a reply may have come while reading a story).
    void queryClient.invalidateQueries({ queryKey: unreadQuery.queryKey });
    void queryClient.invalidateQueries({ queryKey: familyMessagesQuery.queryKey });
    panel.current?.querySelector<HTMLElement>("a, button")?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [state, onClose, queryClient]);

  const go = (to: string) => () => {
    onClose();
    // Tapping Stories while already on the list reloads it (spec section 2).
    if (to === "/" && pathname === "/") window.location.reload();
    else navigate(to);
  };

  const familyUnread = family.data?.unread ?? 0;
  const items: { key: string; icon: string; label: string; count?: number; countLabel?: string; onClick: () => void }[] = [
    ...(watched > MESSAGE_CENTER_MIN_WATCHED
      ? [{ key: "messageCenter", icon: ICONS.chat, label: t("menu.messageCenter"), count: unread, onClick: go("/user-home") }]
      : []),
    { key: "stories", icon: ICONS.stories, label: t("menu.stories"), onClick: go("/") },
    // The keepsake is a book of the family's own voices: offered once there is one.
    ...(hasRecording.data
      ? [{ key: "keepsake", icon: ICONS.keepsake, label: t("menu.keepsake"), onClick: go("/keepsake") }]
      : []),
    // Relatives' replies and questions: offered once one came, with those still to decide counted.
    ...(family.data && family.data.messages.length > 0
      ? [
          {
            key: "family",
            icon: ICONS.family,
            label: t("menu.family"),
            count: familyUnread,
            countLabel: t("menu.familyUnread", { count: familyUnread }),
            onClick: go("/family"),
          },
        ]
      : []),
    {
      key: "share",
      icon: ICONS.share,
      label: t("menu.share"),
      onClick: () => {
        onClose();
        void share();
      },
    },
    {
      key: "install",
      icon: ICONS.install,
      label: t("menu.addToHomeScreen"),
      onClick: () => {
        onClose();
        void promptInstall().then((outcome) => {
          if (outcome === "installed") toast.info(t("menu.alreadyInstalled"));
          else if (outcome === "manual") toast.info(t("menu.installSteps"));
          else if (outcome === "accepted") toast.success(t("menu.installed"));
        });
      },
    },
    { key: "contact", icon: ICONS.contact, label: t("menu.contact"), onClick: go("/contact") },
    { key: "editProfile", icon: ICONS.profile, label: t("menu.editProfile"), onClick: go("/edit-profile") },
    {
      key: "logout",
      icon: ICONS.logout,
      label: t("menu.logout"),
      onClick: () => {
        onClose();
        void signOut().then(() => {
          queryClient.clear();
          navigate("/login", { replace: true });
        });
      },
    },
  ];

  if (state === "closed") return null;
  return (
    <div className={`menu-overlay menu-overlay--${state}`} style={{ animationDuration: `${MENU_FADE_MS}ms` }}>
      <button type="button" className="menu-overlay__backdrop" tabIndex={-1} aria-label={t("menu.close")} onClick={onClose} />
      <div ref={panel} className="menu-panel" role="dialog" aria-modal="true" aria-label={t("menu.label")}>
        <div className="menu-panel__head">
          <span className="menu-panel__title">{title}</span>
          <button type="button" className="round-button" aria-label={t("menu.close")} onClick={onClose}>
            <Icon d={ICONS.close} />
          </button>
        </div>
        <nav aria-label={t("menu.label")}>
          <ul className="menu-list">
            {items.map((item) => (
              <li key={item.key}>
                <button type="button" className="menu-item" onClick={item.onClick} data-item={item.key}>
                  <Icon d={item.icon} />
                  <span>{item.label}</span>
                  {item.count ? (
                    <span className="menu-item__count">
                      <span aria-hidden="true">{item.count}</span>
                      <span className="visually-hidden">{item.countLabel ?? t("menu.unread", { count: item.count })}</span>
                    </span>
                  ) : null}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="menu-panel__language">
          <LanguageSwitch />
        </div>
      </div>
    </div>
  );
}

/** Top bar: menu toggle, title, and the control that closes the menu (spec section 2). */
export function TopBar() {
  const { t } = useTranslation("stories");
  const title = useProductTitle();
  const [menu, setMenu] = useState<MenuState>("closed");
  const toggle = useRef<HTMLButtonElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const close = useCallback(() => {
    setMenu((m) => (m === "open" ? "closing" : m));
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setMenu("closed");
      toggle.current?.focus();
    }, MENU_FADE_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  const open = menu === "open";
  return (
    <>
      <header className="top-bar">
        <button
          ref={toggle}
          type="button"
          className="round-button"
          aria-expanded={open}
          aria-label={open ? t("menu.close") : t("menu.open")}
          onClick={() => (open ? close() : setMenu("open"))}
        >
          <Icon d={open ? ICONS.close : ICONS.menu} />
        </button>
        <span className="top-bar__title">{title}</span>
        <LanguageSwitch />
      </header>
      <MenuOverlay state={menu} onClose={close} />
    </>
  );
}

export function Footer() {
  const { t } = useTranslation("stories");
  const title = useProductTitle();
  return (
    <footer className="app-footer">
      <span className="app-footer__title">{title}</span>
      <span className="app-footer__links">
        <a href="/termandcondtion" target="_blank" rel="noopener">
          {t("footer.terms")}
          <span className="visually-hidden"> {t("footer.newTab")}</span>
        </a>
        <a href="/privacypolicy" target="_blank" rel="noopener">
          {t("footer.privacy")}
          <span className="visually-hidden"> {t("footer.newTab")}</span>
        </a>
      </span>
    </footer>
  );
}

/**
 * Chrome around the signed-in screens that show the menu: top bar, the screen, footer. It checks for a
 * current user on load (spec section 6) and renders nothing for a visitor on the way to /login.
 */
export function AppLayout({ children }: { children?: ReactNode }) {
  const signedIn = useRequireUser();
  if (!signedIn) return null;
  return (
    <div className="screen app-layout">
      <TopBar />
      {children ?? <Outlet />}
      <Footer />
    </div>
  );
}
