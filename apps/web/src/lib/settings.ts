import type { PublicSettings } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";

export const settingsQuery = queryOptions({
  queryKey: ["settings"],
  queryFn: () => api<PublicSettings>("/settings"),
  staleTime: 60_000,
  // Operators can switch maintenance on; open apps notice within a minute.
  refetchInterval: 60_000,
});

export function useSettings() {
  return useQuery(settingsQuery);
}
