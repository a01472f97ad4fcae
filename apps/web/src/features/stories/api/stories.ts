import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { meQuery } from "../../../lib/me.ts";
import { getUserId } from "../../../lib/session.ts";

/** A story as GET /api/stories answers it for a signed-in person (url is left out while locked). */
export interface StoryItem {
  id: string;
  _id?: string;
  order: number;
  url?: string | null;
  title: string;
  subtitle: string;
  titleB?: string | null;
  subtitleB?: string | null;
  thumbnailUrl?: string | null;
  watchStatus?: string;
}

function unwrapList(body: unknown): StoryItem[] {
  if (Array.isArray(body)) return body as StoryItem[];
  const b = body as { items?: StoryItem[]; data?: StoryItem[]; stories?: StoryItem[] } | undefined;
  return b?.items ?? b?.data ?? b?.stories ?? [];
}

export const storiesQuery = queryOptions({
  queryKey: ["stories"],
  queryFn: async ({ signal }) =>
    unwrapList(await api<unknown>("/stories", { signal }))
      .map((s) => ({ ...s, id: s.id ?? s._id }))
      .sort((a, b) => a.order - b.order),
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
      const body = await api<StoryItem | { data: StoryItem }>(`/stories/${encodeURIComponent(id)}`, { signal });
      const story = "data" in body && body.data ? body.data : (body as StoryItem);
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
