import type { RouteObject } from "react-router";
import { lazyScreen } from "../../lib/lazy-screen.ts";

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
