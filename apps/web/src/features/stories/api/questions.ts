import { queryOptions, useQuery } from "@tanstack/react-query";
import { tokenApi } from "../../../lib/api-client.ts";
import { currentLanguage, type Language, useLanguage } from "../../../lib/i18n.ts";
import { isNetworkFailure, type OfflineCopy, readCopy } from "../offline/offline-copy.ts";
import type { Answer, Question } from "./question-types.ts";

export type { Answer, Question } from "./question-types.ts";

/**
 * The server's list, with the files of a downloaded copy where it has them (they play from the device, issue 38);
 * offline, the copy's list.
 */
async function withCopy<T extends { _id: string }>(
  storyId: string,
  language: Language,
  fetchList: () => Promise<T[]>,
  fromCopy: (copy: OfflineCopy) => T[],
): Promise<T[]> {
  let list: T[];
  try {
    list = await fetchList();
  } catch (error) {
    const copy = isNetworkFailure(error) ? await readCopy(storyId, language, true) : null;
    if (copy) return fromCopy(copy);
    throw error;
  }
  const copy = await readCopy(storyId, language);
  if (!copy) return list;
  const kept = new Map(fromCopy(copy).map((item) => [item._id, item]));
  return list.map((item) => kept.get(item._id) ?? item);
}

/** A story's question videos in the app's language (`?lang=`; the English one where there is no Arabic). */
export const questionsQuery = (storyId: string, language: Language) =>
  queryOptions({
    queryKey: ["stories", storyId, "questions", language],
    queryFn: ({ signal }) =>
      withCopy(
        storyId,
        language,
        () => tokenApi<Question[]>(`/story/questions?lang=${language}`, { story: storyId }, signal),
        (copy) => copy.questions,
      ),
    retry: false,
    // Offline the request fails at once and a downloaded copy answers, rather than the query waiting paused.
    networkMode: "offlineFirst",
  });

export const answersQuery = (storyId: string) =>
  queryOptions({
    queryKey: ["stories", storyId, "answers"],
    queryFn: ({ signal }) =>
      withCopy(
        storyId,
        currentLanguage(),
        () => tokenApi<Answer[]>("/story/questions/answers", { story: storyId }, signal),
        (copy) => copy.answers,
      ),
    retry: false,
    networkMode: "offlineFirst",
  });

export function useQuestions(storyId: string) {
  return useQuery(questionsQuery(storyId, useLanguage()));
}

export function useAnswers(storyId: string) {
  return useQuery(answersQuery(storyId));
}
