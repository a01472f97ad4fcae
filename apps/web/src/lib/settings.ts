import type { PublicSettings } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";

export const settingsQuery = queryOptions({
  queryKey: ["settings"],
  queryFn: () => api<PublicSettings>("/settings"),
  staleTime: 15_000,
  // Operators change the title, colour or maintenance mode from the console; open apps notice within 15 s.
  refetchInterval: 15_000,
  refetchOnWindowFocus: true,
  // Offline, ask anyway: the service worker answers from its cache, so the installed app still opens.
  networkMode: "offlineFirst",
  // Offline with nothing cached: fail at once so the app opens with the default look.
  retry: (failures) => navigator.onLine && failures < 3,
});

export function useSettings() {
  return useQuery(settingsQuery);
}
