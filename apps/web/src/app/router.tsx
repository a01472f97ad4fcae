import { createBrowserRouter, Outlet, type RouteObject, useLocation } from "react-router";
import { infoRoutes } from "../features/info/routes.tsx";
import { landingRoutes } from "../features/landing/routes.tsx";
import { NotFoundPage } from "./not-found-page.tsx";
import { SettingsGate } from "./settings-gate.tsx";

/** Every feature contributes its own routes; the shell only puts them together. */
const featureRoutes: RouteObject[] = [...landingRoutes, ...infoRoutes];

function Shell() {
  const { pathname } = useLocation();
  return (
    <SettingsGate pathname={pathname}>
      <Outlet />
    </SettingsGate>
  );
}

export const router = createBrowserRouter([
  { element: <Shell />, children: [...featureRoutes, { path: "*", element: <NotFoundPage /> }] },
]);
