import type { PublicSettings } from "@hikaya/contracts";
import { useSyncExternalStore } from "react";
import { api } from "./api-client.ts";
import { backoffDelay, sleep } from "./backoff.ts";
import { loadSettings } from "./public-settings.ts";

/**
 * The public site settings (title, colour, maintenance) every screen reads, kept without TanStack
 * Query so the first page (the settings gate wraps every route) does not download it (issue 15).
 * Operators change them from the console: open apps ask again every 15 s and when the window regains
 * focus, and the console's save asks at once (`refreshSettings`).
 */
const REFRESH_MS = 15_000;

export interface SettingsState {
  data: PublicSettings | undefined;
  isPending: boolean;
}

let state: SettingsState = { data: undefined, isPending: true };
let inFlight: Promise<void> | undefined;
const listeners = new Set<() => void>();

function publish(next: SettingsState) {
  state = next;
  for (const listener of listeners) listener();
}

async function fetchWithRetry(first: boolean): Promise<PublicSettings> {
  for (let attempt = 0; ; attempt++) {
    try {
      // The first answer is the one the auth client already asked for at start-up: one request, not two.
      // Offline the service worker answers from its cache, so the installed app still opens.
      return first && attempt === 0 ? await loadSettings() : await api<PublicSettings>("/settings");
    } catch (error) {
      // Offline with nothing cached: give up at once so the app opens with the default look.
      if (!navigator.onLine || attempt >= 2) throw error;
      await sleep(backoffDelay(attempt, 1000, 30_000));
    }
  }
}

/** Asks the server again (after the console saved them, on focus, every 15 s while a screen shows them). */
export function refreshSettings(): Promise<void> {
  inFlight ??= fetchWithRetry(state.data === undefined)
    .then(
      (data) => publish({ data, isPending: false }),
      () => publish({ data: state.data, isPending: false }),
    )
    .finally(() => {
      inFlight = undefined;
    });
  return inFlight;
}

let timer: ReturnType<typeof setInterval> | undefined;
const onFocus = () => void refreshSettings();

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (listeners.size === 1) {
    if (state.isPending) void refreshSettings();
    timer = setInterval(onFocus, REFRESH_MS);
    window.addEventListener("focus", onFocus);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearInterval(timer);
      window.removeEventListener("focus", onFocus);
    }
  };
}

const snapshot = () => state;
/**
 * What a prerendered screen was rendered with (app/prerender.tsx): no settings yet, nothing pending, so the gate lets
 * the screen through. Hydration starts from the same state and then re-renders with the real settings (the operator's
 * title, maintenance), which React treats as an ordinary update, not a mismatch.
 */
const PRERENDERED: SettingsState = { data: undefined, isPending: false };
const prerenderedSnapshot = () => PRERENDERED;

export function useSettings(): SettingsState {
  return useSyncExternalStore(subscribe, snapshot, prerenderedSnapshot);
}
