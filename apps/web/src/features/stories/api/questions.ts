import { queryOptions, useQuery } from "@tanstack/react-query";
import { tokenApi } from "../../../lib/api-client.ts";
import { type Language, useLanguage } from "../../../lib/i18n.ts";

export interface Question {
  _id: string;
  url: string;
}

export interface Answer {
  _id: string;
  question: string;
  audio: string;
  character: { nameOfFamilyMember: string; nameOfFamilyMemberAr?: string | null; thumbnail?: string | null };
}

/** A story's question videos in the app's language (`?lang=`; the English one where there is no Arabic). */
export const questionsQuery = (storyId: string, language: Language) =>
  queryOptions({
    queryKey: ["stories", storyId, "questions", language],
    queryFn: ({ signal }) => tokenApi<Question[]>(`/story/questions?lang=${language}`, { story: storyId }, signal),
    retry: false,
  });

export const answersQuery = (storyId: string) =>
  queryOptions({
    queryKey: ["stories", storyId, "answers"],
    queryFn: ({ signal }) => tokenApi<Answer[]>("/story/questions/answers", { story: storyId }, signal),
    retry: false,
  });

export function useQuestions(storyId: string) {
  return useQuery(questionsQuery(storyId, useLanguage()));
}

export function useAnswers(storyId: string) {
  return useQuery(answersQuery(storyId));
}
