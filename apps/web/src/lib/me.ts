import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { getAccessToken } from "./session.ts";

/** GET /api/profile: the signed-in person, with the stories they watched (spec sections 3 and 7). */
export interface Me {
  id?: string;
  name?: string | null;
  watchedStories?: unknown[];
  lastWatchedStoryId?: number;
  [key: string]: unknown;
}

export const meQuery = queryOptions({
  queryKey: ["profile"],
  queryFn: ({ signal }) => api<Me>("/profile", { signal }),
  staleTime: 30_000,
  retry: false,
  networkMode: "offlineFirst",
});

export function useMe() {
  return useQuery({ ...meQuery, enabled: Boolean(getAccessToken()) });
}
