/**
 * The operator console: loaded lazily under /admin/* so the user app's bundle never carries it.
 * Its own routes live here (descendant routes of /admin/*); the facilitator inbox, when the Message
 * Center's console part exists in ./inbox/, is picked up by name and put in the same frame.
 */
import { type ComponentType, lazy, type ReactNode, Suspense } from "react";
import { PrivateMediaProvider } from "../components/chat/private-media.tsx";
import { PageSpinner } from "../components/spinner.tsx";
import { loadNamespaces, useTranslation } from "../lib/i18n.ts";
import { Navigate, type RouteObject, useRoutes } from "../lib/router.tsx";
import { AdminGuard, AdminOnly } from "./admin-guard.tsx";
import { AdminLayout, type NavItem } from "./admin-layout.tsx";
import { consoleSession, useAdminSession } from "./admin-session.ts";
import { PageHeader } from "./components/page.tsx";
import { AnalyticsPage } from "./pages/analytics-page.tsx";
import { AuditPage } from "./pages/audit-page.tsx";
import { CharactersPage } from "./pages/characters-page.tsx";
import { ContactPage } from "./pages/contact-page.tsx";
import { AdminForgotPasswordPage } from "./pages/forgot-password-page.tsx";
import { AdminJoinPage } from "./pages/join-page.tsx";
import { AdminLoginPage } from "./pages/login-page.tsx";
import { MediaPage } from "./pages/media-page.tsx";
import { OutboxPage } from "./pages/outbox-page.tsx";
import { SavedRepliesPage } from "./pages/saved-replies-page.tsx";
import { SettingsPage } from "./pages/settings-page.tsx";
import { StoriesPage } from "./pages/stories-page.tsx";
import { StoryEditorPage } from "./pages/story-editor-page.tsx";
import { StoryPreviewPage } from "./pages/story-preview-page.tsx";
import { TeamPage } from "./pages/team-page.tsx";
import { UserDetailPage } from "./pages/user-detail-page.tsx";
import { UsersPage } from "./pages/users-page.tsx";
import { RemindersPage } from "./reminders/reminders-page.tsx";
import "./admin.css";

// Present only once the message-center engineer's inbox exists; an empty match otherwise.
type InboxModule = { inboxRoutes?: RouteObject[]; inboxNav?: { to: string; labelKey?: string } };
const inboxModules = import.meta.glob<InboxModule>("./inbox/inbox-routes.tsx", { eager: true });
const inboxModule: InboxModule = Object.values(inboxModules)[0] ?? {};

/**
 * Descendant routes are relative to /admin, and only data routers understand `lazy`: an absolute
 * /admin/… path is made relative and a `lazy` route becomes a React.lazy element.
 */
function mountable(routes: RouteObject[]): RouteObject[] {
  return routes.map((r) => {
    const path = r.path?.replace(/^\/admin\/?/, "");
    if (typeof r.lazy !== "function" || r.element || r.Component) return { ...r, path } as RouteObject;
    const load = r.lazy as () => Promise<{ Component?: ComponentType | null; element?: unknown }>;
    const Lazy = lazy(async () => {
      const loaded = await load();
      return { default: (loaded.Component ?? (() => null)) as ComponentType };
    });
    return {
      path,
      element: (
        <Suspense fallback={<PageSpinner />}>
          <Lazy />
        </Suspense>
      ),
    } as RouteObject;
  });
}

// The keepsake book and its strings (the family's `keepsake` namespace) load only when an admin opens one.
const ConsoleKeepsakePage = lazy(async () => {
  const [page] = await Promise.all([import("./pages/keepsake-page.tsx"), loadNamespaces("keepsake")]);
  return { default: page.ConsoleKeepsakePage };
});

const inboxRoutes = mountable(inboxModule.inboxRoutes ?? []);

function AdminNotFound() {
  const { t } = useTranslation("admin");
  return <PageHeader title={t("notFound")} />;
}

const adminOnly = (page: ReactNode) => <AdminOnly>{page}</AdminOnly>;

export function AdminApp() {
  const { t } = useTranslation("admin");
  const session = useAdminSession();
  const firstInboxPath = inboxRoutes.find((r) => r.path)?.path;
  const inboxTo =
    inboxModule.inboxNav?.to ?? (firstInboxPath ? `/admin/${firstInboxPath.replace(/\/?\*$/, "").replace(/\/:.*$/, "")}` : null);
  const extraNav: NavItem[] = inboxTo ? [{ to: inboxTo, label: t("nav.inbox"), count: "waiting" }] : [];
  return useRoutes([
    { path: "login", element: <AdminLoginPage /> },
    { path: "join", element: <AdminJoinPage /> },
    { path: "forgot-password", element: <AdminForgotPasswordPage /> },
    { path: "reset-password", element: <AdminJoinPage mode="reset" /> },
    {
      element: (
        <AdminGuard>
          <PrivateMediaProvider value={consoleSession}>
            <AdminLayout extraNav={extraNav} />
          </PrivateMediaProvider>
        </AdminGuard>
      ),
      children: [
        {
          index: true,
          element: (
            <Navigate to={session.status === "admin" && session.role === "admin" ? "/admin/stories" : "/admin/users"} replace />
          ),
        },
        { path: "stories", element: adminOnly(<StoriesPage />) },
        { path: "stories/:id", element: adminOnly(<StoryEditorPage />) },
        { path: "stories/:id/preview", element: adminOnly(<StoryPreviewPage />) },
        { path: "characters", element: adminOnly(<CharactersPage />) },
        { path: "media", element: adminOnly(<MediaPage />) },
        { path: "settings", element: adminOnly(<SettingsPage />) },
        { path: "users", element: <UsersPage /> },
        { path: "users/:id", element: <UserDetailPage /> },
        {
          path: "users/:id/keepsake",
          element: adminOnly(
            <Suspense fallback={<PageSpinner />}>
              <ConsoleKeepsakePage />
            </Suspense>,
          ),
        },
        { path: "contact", element: adminOnly(<ContactPage />) },
        { path: "outbox", element: adminOnly(<OutboxPage />) },
        { path: "analytics", element: adminOnly(<AnalyticsPage />) },
        { path: "audit", element: adminOnly(<AuditPage />) },
        { path: "reminders", element: adminOnly(<RemindersPage />) },
        { path: "team", element: adminOnly(<TeamPage />) },
        { path: "replies", element: adminOnly(<SavedRepliesPage />) },
        ...inboxRoutes,
        { path: "*", element: <AdminNotFound /> },
      ],
    },
  ]);
}

export default AdminApp;
