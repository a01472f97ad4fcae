/**
 * What relatives left through the family's share links (GET /api/family-messages): the "From your family" screen's
 * list and the menu's count of those still pending, one query for both so a decision updates the count at once.
 */
import type { FamilyMessageList } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { getAccessToken } from "./session.ts";

export const familyMessagesQuery = queryOptions({
  queryKey: ["family-messages"],
  queryFn: ({ signal }) => api<FamilyMessageList>("/family-messages", { signal }),
  refetchInterval: 120_000,
  refetchOnWindowFocus: true,
});

export function useFamilyMessages(enabled = true) {
  return useQuery({ ...familyMessagesQuery, enabled: enabled && Boolean(getAccessToken()) });
}
