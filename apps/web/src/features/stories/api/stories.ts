import type { PlaybackPosition, Story } from "@hikaya/contracts";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { type Language, useLanguage } from "../../../lib/i18n.ts";
import { meQuery } from "../../../lib/me.ts";
import { getUserId } from "../../../lib/session.ts";
import { isNetworkFailure, latestCopy, readCopy } from "../offline/offline-copy.ts";
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
    queryFn: async ({ signal }) => {
      try {
        return await (takeStoriesList(language) ?? fetchStoriesList(language, signal));
      } catch (error) {
        // Offline, the list as it was when a story was downloaded, so that story can be opened (issue 38).
        const copy = isNetworkFailure(error) ? await latestCopy() : null;
        if (copy) return copy.list;
        throw error;
      }
    },
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
    queryFn: async ({ signal }): Promise<Story> => {
      let body: Story | { data: Story };
      try {
        body = await api<Story | { data: Story }>(`/stories/${encodeURIComponent(id)}?lang=${language}`, { signal });
      } catch (error) {
        // Offline, a downloaded copy plays (issue 38); the server stays the judge of the lock whenever it answers.
        const copy = isNetworkFailure(error) ? await readCopy(id, language, true) : null;
        if (copy) return copy.story;
        throw error;
      }
      const fetched = "data" in body && body.data ? body.data : (body as Story);
      const story = { ...fetched, id: fetched.id ?? fetched._id ?? id };
      // Downloaded: its files play from the device even online, which is what the person downloaded it for.
      const copy = story.url && story.watchStatus !== "Locked" ? await readCopy(id, language) : null;
      return copy ? { ...story, url: copy.story.url, stream: copy.story.stream } : story;
    },
    retry: false,
    networkMode: "offlineFirst",
  });

export function useStory(id: string) {
  return useQuery(storyQuery(id, useLanguage()));
}

/** POST /api/users/{id}/watchStory/{storyId}: marks the story watched. */
export const postWatched = (storyId: string, userId = getUserId() ?? "me") =>
  api<unknown>(`/users/${encodeURIComponent(userId)}/watchStory/${encodeURIComponent(storyId)}`, { method: "POST" });

/** Marks the story watched; the list and profile change. */
export function useWatchStory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (storyId: string) => postWatched(storyId),
    // Offline the call fails at once (the story page keeps it for later) rather than waiting paused.
    networkMode: "always",
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: storiesKey });
      void client.invalidateQueries({ queryKey: meQuery.queryKey });
    },
  });
}

/** POST /api/users/me/position/{storyId}: where the person stopped, so the story resumes there (issue 38). */
export const savePlaybackPosition = (storyId: string, seconds: number, keepalive = false) =>
  api<PlaybackPosition>(`/users/me/position/${encodeURIComponent(storyId)}`, { body: { seconds }, keepalive });
