/**
 * The signed-in person's own account (/api/account): what the server stores about their consent,
 * language and login phone. Shared by Edit Profile and the WhatsApp opt-in screen.
 */
import type { AccountSettings, PreferencesRequest } from "@hikaya/contracts";
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
