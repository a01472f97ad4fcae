/**
 * The only module that imports the i18n library. English files are the source of truth: their keys
 * type `t()`. Arabic is the fallback language (spec section 4). Each feature owns a namespace file
 * under locales/<lang>/<namespace>.json; add it to `resources` below.
 */
import i18next from "i18next";
import { initReactI18next, useTranslation } from "react-i18next";
import arCommon from "../locales/ar/common.json";
import enCommon from "../locales/en/common.json";

export const resources = {
  en: { common: enCommon },
  ar: { common: arCommon },
} as const;

/**
 * Namespaces that arrive with their feature's chunk instead of the first download (a route's `lazy`
 * awaits `loadNamespaces`; a language switch loads the other language before re-rendering). Their
 * English files still type `t()` through the type-only imports below.
 */
const lazyNamespaces = {
  account: { en: () => import("../locales/en/account.json"), ar: () => import("../locales/ar/account.json") },
  info: { en: () => import("../locales/en/info.json"), ar: () => import("../locales/ar/info.json") },
  characters: { en: () => import("../locales/en/characters.json"), ar: () => import("../locales/ar/characters.json") },
  admin: { en: () => import("../locales/en/admin.json"), ar: () => import("../locales/ar/admin.json") },
  stories: { en: () => import("../locales/en/stories.json"), ar: () => import("../locales/ar/stories.json") },
  messages: { en: () => import("../locales/en/messages.json"), ar: () => import("../locales/ar/messages.json") },
  inbox: { en: () => import("../locales/en/inbox.json"), ar: () => import("../locales/ar/inbox.json") },
} as const;
export type LazyNamespace = keyof typeof lazyNamespaces;
type LazyResources = {
  account: typeof import("../locales/en/account.json");
  info: typeof import("../locales/en/info.json");
  characters: typeof import("../locales/en/characters.json");
  admin: typeof import("../locales/en/admin.json");
  stories: typeof import("../locales/en/stories.json");
  messages: typeof import("../locales/en/messages.json");
  inbox: typeof import("../locales/en/inbox.json");
};

/** i18next backend for `lazyNamespaces`: each file is its own small chunk. */
const lazyBackend = {
  type: "backend" as const,
  init() {},
  read(language: string, namespace: string, callback: (error: unknown, data?: object) => void) {
    const loaders = (
      lazyNamespaces as Record<string, { en: () => Promise<{ default: object }>; ar: () => Promise<{ default: object }> }>
    )[namespace];
    if (!loaders) return callback(null, {});
    loaders[language.startsWith("en") ? "en" : "ar"]().then(
      (module) => callback(null, module.default),
      (error) => callback(error),
    );
  },
};

/** Loads a lazily bundled namespace (for the current language and the fallback) before a screen renders. */
export function loadNamespaces(...namespaces: LazyNamespace[]) {
  return i18next.loadNamespaces(namespaces);
}

export type Namespace = keyof (typeof resources)["en"] | LazyNamespace;
export type Language = keyof typeof resources;
export const LANGUAGE_STORAGE_KEY = "i18nextLng";

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "common";
    resources: (typeof resources)["en"] & LazyResources;
  }
}

export function isRtl(language: string): boolean {
  return language.startsWith("ar");
}

function applyDocumentLanguage(language: string) {
  const lang = language.startsWith("ar") ? "ar" : "en";
  document.documentElement.lang = lang;
  document.documentElement.dir = isRtl(lang) ? "rtl" : "ltr";
}

export const i18n = i18next;

const asLanguage = (value: string | null | undefined): Language | null =>
  value?.toLowerCase().startsWith("en") ? "en" : value?.toLowerCase().startsWith("ar") ? "ar" : null;

function stored(): string | null {
  try {
    return localStorage.getItem(LANGUAGE_STORAGE_KEY);
  } catch {
    return null; // storage blocked (private mode, sandboxed frame): the link and the browser still decide
  }
}

/**
 * The language to start in: `?lng=` (links in texts and e-mails), then the person's last choice, then the browser's
 * languages, else Arabic (the fallback, spec section 4). A few lines instead of a detector plugin for the first download.
 */
export function detectLanguage(
  search = location.search,
  languages: readonly string[] = navigator.languages ?? [navigator.language],
): Language {
  const fromLink = asLanguage(new URLSearchParams(search).get("lng"));
  if (fromLink) return fromLink;
  const fromChoice = asLanguage(stored());
  if (fromChoice) return fromChoice;
  for (const tag of languages) {
    const fromBrowser = asLanguage(tag);
    if (fromBrowser) return fromBrowser;
  }
  return "ar";
}

function remember(language: string) {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, language.startsWith("en") ? "en" : "ar");
  } catch {
    // nowhere to keep it: the next visit detects again
  }
}

export function initI18n() {
  if (i18next.isInitialized) return i18next;
  i18next.on("languageChanged", (language) => {
    applyDocumentLanguage(language);
    remember(language);
  });
  void i18next
    .use(lazyBackend)
    .use(initReactI18next)
    .init({
      resources,
      lng: detectLanguage(),
      partialBundledLanguages: true,
      defaultNS: "common",
      ns: Object.keys(resources.en),
      fallbackLng: "ar",
      supportedLngs: ["en", "ar"],
      nonExplicitSupportedLngs: true,
      load: "languageOnly",
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
    });
  applyDocumentLanguage(i18next.resolvedLanguage ?? "ar");
  return i18next;
}

export function currentLanguage(): Language {
  return (i18next.resolvedLanguage ?? i18next.language ?? "ar").startsWith("en") ? "en" : "ar";
}

/** The app's language, re-rendering the caller when it changes (queries keyed by it fetch that language's media). */
export function useLanguage(): Language {
  const { i18n: instance } = useTranslation();
  return (instance.resolvedLanguage ?? instance.language ?? "ar").startsWith("en") ? "en" : "ar";
}

export function setLanguage(language: Language) {
  return i18next.changeLanguage(language);
}

export { Trans } from "react-i18next";
export { useTranslation };
