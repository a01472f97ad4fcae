import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

export const charactersRoutes: RouteObject[] = [
  {
    path: "/character",
    lazy: lazyScreen(() => import("./character-page.tsx"), "EnglishCharacterPage", "characters"),
  },
  {
    path: "/arabic-character",
    lazy: lazyScreen(() => import("./character-page.tsx"), "ArabicCharacterPage", "characters"),
  },
];
