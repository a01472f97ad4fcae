/**
 * The app's translations: `t(key, { count, name… })` over locales/<lang>/<namespace>.json, `{{name}}`
 * interpolation and plural keys (`_zero`, `_one`, `_two`, `_few`, `_many`, `_other`) chosen by the
 * language's own plural rules (Intl.PluralRules: Arabic has all six). A few hundred bytes instead of
 * i18next and react-i18next (about 18 KB gzipped, issue 15), with the same lookup order as i18next.
 *
 * Every namespace, `common` included, is its own chunk per language (`locale-<lang>-<ns>`), loaded for
 * the language in use only: a route's `lazy` awaits `loadNamespaces`, a language switch loads the other
 * language before re-rendering. English files are the source of truth: their keys type `t()`.
 */

import { LANGUAGE_COOKIE } from "@hikaya/contracts/constants";
import { useEffect, useMemo, useSyncExternalStore } from "react";

type Json = { default: object };
const loaders = {
  common: { en: () => import("../locales/en/common.json"), ar: () => import("../locales/ar/common.json") },
  account: { en: () => import("../locales/en/account.json"), ar: () => import("../locales/ar/account.json") },
  info: { en: () => import("../locales/en/info.json"), ar: () => import("../locales/ar/info.json") },
  characters: { en: () => import("../locales/en/characters.json"), ar: () => import("../locales/ar/characters.json") },
  admin: { en: () => import("../locales/en/admin.json"), ar: () => import("../locales/ar/admin.json") },
  stories: { en: () => import("../locales/en/stories.json"), ar: () => import("../locales/ar/stories.json") },
  messages: { en: () => import("../locales/en/messages.json"), ar: () => import("../locales/ar/messages.json") },
  inbox: { en: () => import("../locales/en/inbox.json"), ar: () => import("../locales/ar/inbox.json") },
  keepsake: { en: () => import("../locales/en/keepsake.json"), ar: () => import("../locales/ar/keepsake.json") },
} satisfies Record<string, Record<"en" | "ar", () => Promise<Json>>>;

type Resources = {
  common: typeof import("../locales/en/common.json");
  account: typeof import("../locales/en/account.json");
  info: typeof import("../locales/en/info.json");
  characters: typeof import("../locales/en/characters.json");
  admin: typeof import("../locales/en/admin.json");
  stories: typeof import("../locales/en/stories.json");
  messages: typeof import("../locales/en/messages.json");
  inbox: typeof import("../locales/en/inbox.json");
  keepsake: typeof import("../locales/en/keepsake.json");
};

export type Namespace = keyof Resources;
export type LazyNamespace = Exclude<Namespace, "common">;
export type Language = "en" | "ar";
export const LANGUAGE_STORAGE_KEY = "i18nextLng";

type PluralSuffix = "zero" | "one" | "two" | "few" | "many" | "other";
type Leaves<T, P extends string = ""> = T extends string
  ? P
  : { [K in keyof T & string]: Leaves<T[K], P extends "" ? K : `${P}.${K}`> }[keyof T & string];
type WithoutPlural<K> = K extends `${infer Base}_${PluralSuffix}` ? Base : K;
/** A key of the English file (a plural key also by its base name, as `t("x", { count })` takes it). */
export type TranslationKey<NS extends Namespace> = Leaves<Resources[NS]> | WithoutPlural<Leaves<Resources[NS]>>;
export type TOptions = { count?: number; defaultValue?: string } & Record<string, unknown>;
export type TFunction<NS extends Namespace = "common"> = {
  (key: TranslationKey<NS>, options?: TOptions): string;
  /** A key built from data (an audit action, a status) needs the text to show when the file has none. */
  (key: string, options: TOptions & { defaultValue: string }): string;
};

// ---- state ----

const bundles: Record<Language, Partial<Record<Namespace, object>>> = { en: {}, ar: {} };
/** Namespaces the app has asked for: a language switch loads them all in the new language first. */
const wanted = new Set<Namespace>(["common"]);
const listeners = new Set<() => void>();
// Set from detectLanguage() below, once its helpers exist.
let language: Language = "ar";

function load(lang: Language, namespaces: Iterable<Namespace>): Promise<unknown> {
  return Promise.all(
    [...namespaces].map(async (ns) => {
      if (bundles[lang][ns]) return;
      bundles[lang][ns] = (await loaders[ns][lang]()).default;
    }),
  );
}

const pluralRules: Partial<Record<Language, Intl.PluralRules>> = {};

/** A key's text; like i18next, a key may itself contain dots ("audit.actions.story.create" → "story.create"). */
function find(node: unknown, parts: string[]): string | undefined {
  if (parts.length === 0) return typeof node === "string" ? node : undefined;
  if (typeof node !== "object" || node === null) return undefined;
  for (let take = 1; take <= parts.length; take++) {
    const next = (node as Record<string, unknown>)[parts.slice(0, take).join(".")];
    if (next === undefined) continue;
    const found = find(next, parts.slice(take));
    if (found !== undefined) return found;
  }
  return undefined;
}

function lookup(lang: Language, ns: Namespace, key: string): string | undefined {
  return find(bundles[lang][ns], key.split("."));
}

/** i18next's order: `_zero` for 0, then the language's plural form, then `_other`, then the bare key. */
export function translate(lang: Language, ns: Namespace, key: string, options: TOptions = {}): string {
  const { count } = options;
  let text: string | undefined;
  if (typeof count === "number") {
    pluralRules[lang] ??= new Intl.PluralRules(lang);
    const form = pluralRules[lang].select(count);
    text =
      (count === 0 ? lookup(lang, ns, `${key}_zero`) : undefined) ??
      lookup(lang, ns, `${key}_${form}`) ??
      lookup(lang, ns, `${key}_other`);
  }
  text ??= lookup(lang, ns, key) ?? options.defaultValue;
  if (text === undefined) return key;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(options[name] ?? ""));
}

function exists(key: string, options: { ns?: Namespace } = {}): boolean {
  return lookup(language, options.ns ?? "common", key) !== undefined;
}

function fixedT<NS extends Namespace>(lang: Language, ns: NS): TFunction<NS> {
  return ((key: string, options?: TOptions) => translate(lang, ns, key, options)) as TFunction<NS>;
}

function emit() {
  for (const listener of listeners) listener();
}

export function onLanguageChanged(listener: (language: Language) => void): () => void {
  const wrapped = () => listener(language);
  listeners.add(wrapped);
  return () => listeners.delete(wrapped);
}

// ---- language ----

export function isRtl(language: string): boolean {
  return language.startsWith("ar");
}

function applyDocumentLanguage(lang: Language) {
  document.documentElement.lang = lang;
  document.documentElement.dir = isRtl(lang) ? "rtl" : "ltr";
}

const asLanguage = (value: string | null | undefined): Language | null =>
  value?.toLowerCase().startsWith("en") ? "en" : value?.toLowerCase().startsWith("ar") ? "ar" : null;

function stored(storage: "localStorage" | "sessionStorage" = "localStorage"): string | null {
  try {
    return window[storage].getItem(LANGUAGE_STORAGE_KEY);
  } catch {
    return null; // storage blocked (private mode, sandboxed frame): the link and the browser still decide
  }
}

function fromCookie(cookie: string): string | null {
  return new RegExp(`(?:^|;\\s*)${LANGUAGE_COOKIE}=(\\w+)`).exec(cookie)?.[1] ?? null;
}

/** Where a first render looks for the language, in the spec's order (section 4). */
export interface LanguageSources {
  search: string;
  cookie: string;
  local: string | null;
  session: string | null;
  browser: readonly string[];
  html: string;
}

const sourcesHere = (): LanguageSources => ({
  search: location.search,
  cookie: document.cookie,
  local: stored("localStorage"),
  session: stored("sessionStorage"),
  browser: navigator.languages ?? [navigator.language],
  html: document.documentElement.lang,
});

/**
 * The language to start in, in the spec's order (section 4): `?lng=` (links in texts and e-mails), the cookie (the
 * person's choice, as the server reads it too), local storage, session storage, the browser's languages, the page's
 * `<html lang>`, else Arabic.
 */
export function detectLanguage(sources: LanguageSources = sourcesHere()): Language {
  const candidates = [
    new URLSearchParams(sources.search).get("lng"),
    fromCookie(sources.cookie),
    sources.local,
    sources.session,
    ...sources.browser,
    sources.html,
  ];
  for (const candidate of candidates) {
    const language = asLanguage(candidate);
    if (language) return language;
  }
  return "ar";
}

if (typeof window !== "undefined") language = detectLanguage();

function remember(lang: Language) {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // nowhere to keep it: the next visit detects again
  }
  tellServer(lang);
}

/** For the server, which names this language's strings among a screen's preloads (the choice itself is kept above). */
function tellServer(lang: Language) {
  // biome-ignore lint/suspicious/noDocumentCookie: a fixed language code, and the Cookie Store API is not in every browser the app supports
  if (typeof document !== "undefined") document.cookie = `${LANGUAGE_COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
}

/** Loads a namespace in the current language (a route's `lazy` awaits it, so a screen never renders untranslated). */
export function loadNamespaces(...namespaces: Namespace[]): Promise<unknown> {
  for (const ns of namespaces) wanted.add(ns);
  return load(language, namespaces);
}

export async function setLanguage(next: Language): Promise<void> {
  await load(next, wanted);
  if (language === next) return;
  language = next;
  if (typeof document !== "undefined") applyDocumentLanguage(next);
  remember(next);
  emit();
}

let started: Promise<unknown> | undefined;

/** Sets the page's language and direction and loads the common strings; the app renders once they are in. */
export function initI18n(): Promise<unknown> {
  if (!started) {
    if (typeof document !== "undefined") {
      applyDocumentLanguage(language);
      // A link's ?lng= (texts and e-mails carry one) is a choice like the switch: kept, so the next visit without it
      // opens in the same language (spec section 4: the detected language is cached in local storage).
      const fromLink = asLanguage(new URLSearchParams(location.search).get("lng"));
      if (fromLink && asLanguage(stored()) !== fromLink) remember(fromLink);
      // A choice kept before the cookie existed: the server learns it now, not at the person's next switch.
      const choice = asLanguage(stored());
      if (choice && !document.cookie.split("; ").includes(`${LANGUAGE_COOKIE}=${choice}`)) tellServer(choice);
    }
    started = load(language, wanted);
  }
  return started;
}

/** The build's prerender (app/prerender.tsx, no window): renders in `lang` with the namespaces the screen needs. */
export function renderIn(lang: Language, ...namespaces: Namespace[]): Promise<unknown> {
  language = lang;
  for (const ns of namespaces) wanted.add(ns);
  return load(lang, wanted);
}

export function currentLanguage(): Language {
  return language;
}

/** The app's language, re-rendering the caller when it changes (queries keyed by it fetch that language's media). */
export function useLanguage(): Language {
  return useSyncExternalStore(subscribe, currentLanguage, currentLanguage);
}

/** Imperative access outside components (error messages, tests), always in the current language. */
export const i18n = {
  get language(): Language {
    return language;
  },
  t: ((key: string, options?: TOptions) => translate(language, "common", key, options)) as TFunction,
  exists,
  changeLanguage: setLanguage,
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/**
 * The Arabic-first screens (/arabic-register, /arabic-questions) open in Arabic, unless their link asks for a language
 * (`?lng=en`): then the link's choice stands, and is the one kept.
 */
export function useArabicFirst() {
  useEffect(() => {
    if (!new URLSearchParams(window.location.search).has("lng") && currentLanguage() !== "ar") void setLanguage("ar");
  }, []);
}

/** `t` for a namespace (default `common`); the component re-renders when the language changes. */
export function useTranslation<NS extends Namespace = "common">(ns?: NS): { t: TFunction<NS>; i18n: { language: Language } } {
  const lang = useSyncExternalStore(subscribe, currentLanguage, currentLanguage);
  const namespace = (ns ?? "common") as NS;
  return useMemo(() => ({ t: fixedT(lang, namespace), i18n: { language: lang } }), [lang, namespace]);
}
