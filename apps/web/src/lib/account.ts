/**
 * The signed-in person's own account (/api/account): what the server stores about their consent,
 * language and login phone. Shared by Edit Profile and the WhatsApp opt-in screen.
 */
import type { AccountSettings, PreferencesRequest, ViewingMode } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { getAccessToken } from "./session.ts";

export const accountQuery = queryOptions({
  queryKey: ["account"],
  queryFn: () => api<AccountSettings>("/account"),
});

export function useAccount() {
  return useQuery({ ...accountQuery, enabled: Boolean(getAccessToken()) });
}

/** Stores the given answers (each with the time it was given) and answers with the account as stored. */
export const savePreferences = (body: PreferencesRequest) => api<AccountSettings>("/account/preferences", { body });

/** Whether the browser asks sites to save data (Chrome's Lite mode, Android's data saver): `Save-Data: on`. */
const browserSavesData = () => (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true;

/**
 * The viewing mode the players keep to (issue 38): the account's, else (signed out, offline) what the browser's
 * data saver implies. Null while the account is on its way: a player waits rather than fetch a rung not wanted.
 */
export function useViewingMode(): ViewingMode | null {
  const account = useAccount();
  if (account.data) return account.data.viewingMode;
  // A first try only: a failing server would otherwise hold the player through every retry's back-off.
  if (account.fetchStatus === "fetching" && account.failureCount === 0) return null;
  return browserSavesData() ? "save_data" : "best";
}
