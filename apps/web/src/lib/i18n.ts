/**
 * The only module that imports the i18n library. English files are the source of truth: their keys
 * type `t()`. Arabic is the fallback language (spec section 4). Each feature owns a namespace file
 * under locales/<lang>/<namespace>.json; add it to `resources` below.
 */
import i18next from "i18next";
import LanguageDetector from "i18next-browser-languagedetector";
import { initReactI18next, useTranslation } from "react-i18next";
import arCommon from "../locales/ar/common.json";
import enCommon from "../locales/en/common.json";

export const resources = {
  en: { common: enCommon },
  ar: { common: arCommon },
} as const;

export type Namespace = keyof (typeof resources)["en"];
export type Language = keyof typeof resources;
export const LANGUAGE_STORAGE_KEY = "i18nextLng";

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "common";
    resources: (typeof resources)["en"];
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

export function initI18n() {
  if (i18next.isInitialized) return i18next;
  i18next.on("languageChanged", applyDocumentLanguage);
  void i18next
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      resources,
      defaultNS: "common",
      ns: Object.keys(resources.en),
      fallbackLng: "ar",
      supportedLngs: ["en", "ar"],
      nonExplicitSupportedLngs: true,
      load: "languageOnly",
      interpolation: { escapeValue: false },
      returnNull: false,
      detection: {
        order: ["querystring", "cookie", "localStorage", "sessionStorage", "navigator", "htmlTag"],
        lookupQuerystring: "lng",
        lookupLocalStorage: LANGUAGE_STORAGE_KEY,
        caches: ["localStorage"],
      },
      initAsync: false,
    });
  applyDocumentLanguage(i18next.resolvedLanguage ?? "ar");
  return i18next;
}

export function currentLanguage(): Language {
  return (i18next.resolvedLanguage ?? i18next.language ?? "ar").startsWith("en") ? "en" : "ar";
}

export function setLanguage(language: Language) {
  return i18next.changeLanguage(language);
}

export { Trans } from "react-i18next";
export { useTranslation };
