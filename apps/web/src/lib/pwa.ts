/// <reference types="vite-plugin-pwa/client" />
/**
 * Install as an app: registers the service worker (vite-plugin-pwa), starts holding the browser's install
 * prompt (install-prompt.ts) until the person taps "Add to Home Screen", and points the manifest link at the manifest of
 * the current language. Imported once from main.tsx so the prompt event is never missed.
 */
import { currentLanguage, onLanguageChanged } from "./i18n.ts";
// Listens for the browser's install prompt from the first moment (this module is imported by main.tsx).
import "./install-prompt.ts";

function applyManifest(language: string) {
  const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]');
  if (!link) return;
  const href = language.startsWith("ar") ? "/manifest-ar.webmanifest" : "/manifest.webmanifest";
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

/**
 * Locale chunks stay out of the precache (only the language in use is wanted) and reach the service
 * worker's runtime cache when fetched through it; the ones this first visit fetched before the worker
 * took control are fetched again once it has, so the installed app opens offline in its language.
 */
function cacheLoadedLocales() {
  for (const entry of performance.getEntriesByType("resource")) {
    if (new URL(entry.name).pathname.startsWith("/assets/locale-")) void fetch(entry.name).catch(() => {});
  }
}

function registerWorker() {
  if (!navigator.serviceWorker.controller)
    navigator.serviceWorker.addEventListener("controllerchange", cacheLoadedLocales, { once: true });
  void import("virtual:pwa-register").then(({ registerSW }) => registerSW({ immediate: true }));
}

export function startPwa() {
  applyManifest(currentLanguage());
  onLanguageChanged(applyManifest);
  if ("serviceWorker" in navigator && import.meta.env.PROD) {
    // After the page has loaded: the worker's script and its precache downloads never compete with the first screen.
    if (document.readyState === "complete") registerWorker();
    else window.addEventListener("load", registerWorker, { once: true });
  }
}
