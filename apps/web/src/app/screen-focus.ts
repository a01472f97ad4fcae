import { useLayoutEffect, useRef, useSyncExternalStore } from "react";
import { currentLanguage, useTranslation } from "../lib/i18n.ts";
import { type Location, useNavigationType } from "../lib/router.tsx";
import { useSettings } from "../lib/settings.ts";
import { subscribeTitleCount, titleCount, withTitleCount } from "../lib/title-count.ts";

/** The screen's name: its main heading, else what its <main> is labelled. */
function screenName(): string {
  const heading = document.querySelector("main h1") ?? document.querySelector("h1");
  const label = document.querySelector("main")?.getAttribute("aria-label");
  return (heading?.textContent ?? label ?? "").trim();
}

/**
 * What a screen reader user and a browser tab need after a navigation: the page's title names the screen in the
 * person's language ("Log in · Hikaya"), and focus moves to the new screen's main heading, so reading starts there
 * rather than at the top of a page that was replaced under them. The first screen keeps the browser's own focus.
 */
export function useScreenTitleAndFocus(location: Location) {
  const { t } = useTranslation();
  const { data } = useSettings();
  const product = data?.title[currentLanguage()] || t("productTitle");
  // The console's unread conversations, first in the title so a background tab shows them (0 elsewhere).
  const count = useSyncExternalStore(subscribeTitleCount, titleCount, () => 0);
  const type = useNavigationType();
  const shown = useRef<string | null>(null);
  useLayoutEffect(() => {
    const name = () => {
      const screen = screenName();
      document.title = withTitleCount(screen && screen !== product ? `${screen} · ${product}` : product, count);
    };
    name();
    // A heading that arrives with its data (a story's title) renames the page when it shows.
    let frame = 0;
    const observer = new MutationObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(name);
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [product, count]);
  useLayoutEffect(() => {
    const first = shown.current === null;
    shown.current = location.pathname;
    if (first || type === "REPLACE") return;
    const heading = document.querySelector<HTMLElement>("main h1") ?? document.querySelector<HTMLElement>("h1");
    if (!heading) return;
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  }, [location.pathname, type]);
}
