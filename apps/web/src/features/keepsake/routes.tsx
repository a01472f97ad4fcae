import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

/** The family's keepsake book: choose, preview, share and print. */
export const keepsakeRoutes: RouteObject[] = [
  { path: "/keepsake", lazy: lazyScreen(() => import("./keepsake-page.tsx"), "KeepsakePage", "keepsake") },
  // What relatives replied and asked through the shared links ("From your family").
  { path: "/family", lazy: lazyScreen(() => import("./family-page.tsx"), "FamilyPage", "keepsake") },
];
