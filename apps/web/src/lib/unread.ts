/**
 * The number of facilitator messages the signed-in person has not read (the menu's Message Center badge).
 * Polled gently and refreshed when the app comes back to the front; the chat screen marks messages read.
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { getAccessToken } from "./session.ts";

export const unreadQuery = queryOptions({
  queryKey: ["messages", "unread"],
  queryFn: () => api<{ count: number }>("/messages/unread"),
  refetchInterval: 60_000,
  refetchOnWindowFocus: true,
});

export function useUnreadMessages(enabled = true): number {
  const { data } = useQuery({ ...unreadQuery, enabled: enabled && Boolean(getAccessToken()) });
  return data?.count ?? 0;
}
