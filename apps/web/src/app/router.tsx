import { accountRoutes } from "../features/account/routes.tsx";
import { charactersRoutes } from "../features/characters/routes.tsx";
import { infoRoutes } from "../features/info/routes.tsx";
import { keepsakeRoutes } from "../features/keepsake/routes.tsx";
import { landingRoutes } from "../features/landing/routes.tsx";
import { messagesRoutes } from "../features/messages/routes.tsx";
import { storiesRoutes } from "../features/stories/routes.tsx";
import { lazyScreen } from "../lib/lazy-screen.ts";
import { Outlet, type RouteObject, useLocation } from "../lib/router.tsx";
import { NotFoundPage } from "./not-found-page.tsx";
import { useScreenTitleAndFocus } from "./screen-focus.ts";
import { SettingsGate } from "./settings-gate.tsx";

/** Every feature contributes its own routes; the shell only puts them together. */
const featureRoutes: RouteObject[] = [
  ...landingRoutes,
  ...infoRoutes,
  ...storiesRoutes,
  ...accountRoutes,
  ...charactersRoutes,
  ...messagesRoutes,
  ...keepsakeRoutes,
];

/**
 * The screens a first visit lands on that fetch nothing through TanStack Query: they render without it,
 * so their first download leaves it out. Every other screen sits under the lazily loaded QueryLayout.
 */
const WITHOUT_QUERY = new Set(["/landing", "/landing-page", "/login", "/register", "/arabic-register", "/maintenance"]);

const queryLayout = async () => ({ Component: (await import("./query-layout.tsx")).QueryLayout });

function Shell() {
  const location = useLocation();
  useScreenTitleAndFocus(location);
  return (
    <SettingsGate pathname={location.pathname}>
      <Outlet />
    </SettingsGate>
  );
}

/** The operator console: its own lazily loaded chunk, so the user app's bundle never includes it. */
const adminRoutes: RouteObject[] = [
  { path: "/admin/*", lazy: lazyScreen(() => import("../admin/admin-app.tsx"), "AdminApp", "admin") },
];

/** Every screen, for the browser's router (main.tsx) and the build's prerender (prerender.tsx). */
export const routes: RouteObject[] = [
  {
    element: <Shell />,
    children: [
      ...featureRoutes.filter((r) => WITHOUT_QUERY.has(r.path ?? "")),
      { lazy: queryLayout, children: [...featureRoutes.filter((r) => !WITHOUT_QUERY.has(r.path ?? "")), ...adminRoutes] },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
];
