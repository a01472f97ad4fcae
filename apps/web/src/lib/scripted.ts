import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False while a prerendered screen is rendered for the build and hydrated (the HTML a person sees before any script),
 * true from then on and on any screen the app renders itself. A screen that must work without scripts (a video with
 * its own controls, a link the server filled in) renders that version until its scripts take it over.
 */
export function useScripted(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
