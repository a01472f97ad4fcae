import type { RouteObject } from "react-router";
import { loadNamespaces } from "../../lib/i18n.ts";

/** A screen's chunk together with its strings, so it never renders untranslated. */
const withStrings = async <T,>(screen: Promise<T>) => (await Promise.all([screen, loadNamespaces("characters")]))[0];

export const charactersRoutes: RouteObject[] = [
  {
    path: "/character",
    lazy: async () => ({ Component: (await withStrings(import("./character-page.tsx"))).EnglishCharacterPage }),
  },
  {
    path: "/arabic-character",
    lazy: async () => ({ Component: (await withStrings(import("./character-page.tsx"))).ArabicCharacterPage }),
  },
];
