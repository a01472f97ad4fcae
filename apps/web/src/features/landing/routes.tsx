import type { RouteObject } from "../../lib/router.tsx";
import { LandingPage } from "./landing-page.tsx";

export const landingRoutes: RouteObject[] = [
  { path: "/landing", element: <LandingPage /> },
  { path: "/landing-page", element: <LandingPage /> },
];
