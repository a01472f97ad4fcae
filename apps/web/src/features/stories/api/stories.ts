import type { Story } from "@hikaya/contracts";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { meQuery } from "../../../lib/me.ts";
import { getUserId } from "../../../lib/session.ts";

export const storiesQuery = queryOptions({
  queryKey: ["stories"],
  queryFn: async ({ signal }) => (await api<Story[]>("/stories", { signal })).sort((a, b) => a.order - b.order),
  staleTime: 15_000,
  // Offline the request fails at once and the list says so, rather than waiting paused.
  networkMode: "offlineFirst",
  retry: (failures) => navigator.onLine && failures < 1,
});

export function useStories() {
  return useQuery(storiesQuery);
}

export const storyQuery = (id: string) =>
  queryOptions({
    queryKey: ["stories", id],
    queryFn: async ({ signal }) => {
      const body = await api<Story | { data: Story }>(`/stories/${encodeURIComponent(id)}`, { signal });
      const story = "data" in body && body.data ? body.data : (body as Story);
      return { ...story, id: story.id ?? story._id ?? id };
    },
    retry: false,
  });

export function useStory(id: string) {
  return useQuery(storyQuery(id));
}

/** POST /api/users/{id}/watchStory/{storyId}: marks the story watched; the list and profile change. */
export function useWatchStory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (storyId: string) =>
      api<unknown>(`/users/${encodeURIComponent(getUserId() ?? "me")}/watchStory/${encodeURIComponent(storyId)}`, {
        method: "POST",
      }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: storiesQuery.queryKey });
      void client.invalidateQueries({ queryKey: meQuery.queryKey });
    },
  });
}
