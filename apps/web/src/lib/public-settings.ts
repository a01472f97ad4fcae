import type { PublicSettings } from "@hikaya/contracts";

/**
 * GET /api/settings once per page load for what the auth client needs (the anon key, the username
 * e-mail domain). Screens read the live settings through TanStack Query (lib/settings.ts) instead.
 */
let settingsPromise: Promise<PublicSettings> | undefined;

export function loadSettings(): Promise<PublicSettings> {
  settingsPromise ??= fetch("/api/settings").then(async (res) => {
    if (!res.ok) throw new Error(`settings ${res.status}`);
    return (await res.json()) as PublicSettings;
  });
  settingsPromise.catch(() => {
    settingsPromise = undefined;
  });
  return settingsPromise;
}
