import type { Story } from "@hikaya/contracts";
import { api } from "../../../lib/api-client.ts";
import type { Language } from "../../../lib/i18n.ts";

/**
 * GET /api/stories in a language, without TanStack Query, so the entry can start it (app/early-requests.ts) before
 * the home screen's code and strings have loaded: the list, then its first thumbnail, come that much sooner (the
 * signed-in home's largest paint, issue 15). The query (api/stories.ts) takes that answer instead of asking again.
 */
export const fetchStoriesList = async (language: Language, signal?: AbortSignal) =>
  (await api<Story[]>(`/stories?lang=${language}`, { signal })).sort((a, b) => a.order - b.order);

/** A story's thumbnail in the list's language (the list's `?lang=` chose it). */
/** The story's thumbnail, or null: a story without one shows the card's placeholder (no address that answers 404). */
export const thumbnailOf = (story: Story): string | null => story.thumbnailUrl || null;

/**
 * The first card's thumbnail (the home's largest paint), asked for as soon as the list is in rather than once the
 * home has rendered; the card's <img> then finds it in the memory cache.
 */
function preloadFirstThumbnail(stories: Story[]) {
  const first = stories[0];
  if (!first || typeof document === "undefined") return;
  const link = document.createElement("link");
  const href = thumbnailOf(first);
  if (!href) return;
  const attributes = { rel: "preload", as: "image", fetchpriority: "high", href };
  for (const [name, value] of Object.entries(attributes)) link.setAttribute(name, value);
  document.head.append(link);
}

/** An answer this old is not handed over: the query asks again (its staleTime is 15 s). */
export const EARLY_LIST_MAX_AGE_MS = 15_000;

let early: { language: Language; answer: Promise<Story[]>; startedAt: number } | null = null;

export function startStoriesList(language: Language) {
  const answer = fetchStoriesList(language);
  // Whoever takes it sees a failure (and retries as the query does); nobody taking it is not an unhandled rejection.
  void answer.then(preloadFirstThumbnail, () => undefined);
  early = { language, answer, startedAt: Date.now() };
}

/** The early request, once, when it is for this language and recent enough; otherwise null. */
export function takeStoriesList(language: Language): Promise<Story[]> | null {
  const taken = early;
  early = null;
  if (!taken || taken.language !== language || Date.now() - taken.startedAt > EARLY_LIST_MAX_AGE_MS) return null;
  return taken.answer;
}
