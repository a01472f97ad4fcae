import type { PlaybackPosition, Story } from "@hikaya/contracts";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { type Language, useLanguage } from "../../../lib/i18n.ts";
import { meQuery } from "../../../lib/me.ts";
import { getUserId } from "../../../lib/session.ts";
import { fetchStoriesList, takeStoriesList } from "./stories-list.ts";

/** Every story query starts with this key: invalidating it refreshes the list and each story, in every language. */
export const storiesKey = ["stories"] as const;

/**
 * The list in the app's language: `?lang=` picks the videos and thumbnails (English where a story has no
 * Arabic ones). The address differs per language, so no cache (HTTP, service worker, this one) mixes them up.
 */
export const storiesQuery = (language: Language) =>
  queryOptions({
    queryKey: [...storiesKey, "list", language],
    // The entry may have asked already (app/early-requests.ts): its answer, once, else a request of our own.
    queryFn: ({ signal }) => takeStoriesList(language) ?? fetchStoriesList(language, signal),
    staleTime: 15_000,
    // A language switch keeps the list on screen until this language's arrives, so nothing jumps meanwhile.
    placeholderData: (previous) => previous,
    // Offline the request fails at once and the list says so, rather than waiting paused.
    networkMode: "offlineFirst",
    retry: (failures) => navigator.onLine && failures < 1,
  });

export function useStories() {
  return useQuery(storiesQuery(useLanguage()));
}

export const storyQuery = (id: string, language: Language) =>
  queryOptions({
    queryKey: [...storiesKey, id, language],
    queryFn: async ({ signal }) => {
      const body = await api<Story | { data: Story }>(`/stories/${encodeURIComponent(id)}?lang=${language}`, { signal });
      const story = "data" in body && body.data ? body.data : (body as Story);
      return { ...story, id: story.id ?? story._id ?? id };
    },
    retry: false,
  });

export function useStory(id: string) {
  return useQuery(storyQuery(id, useLanguage()));
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
      void client.invalidateQueries({ queryKey: storiesKey });
      void client.invalidateQueries({ queryKey: meQuery.queryKey });
    },
  });
}

/** POST /api/users/me/position/{storyId}: where the person stopped, so the story resumes there (issue 38). */
export const savePlaybackPosition = (storyId: string, seconds: number, keepalive = false) =>
  api<PlaybackPosition>(`/users/me/position/${encodeURIComponent(storyId)}`, { body: { seconds }, keepalive });
