import { queryOptions, useQuery } from "@tanstack/react-query";
import { tokenApi } from "../../../lib/api-client.ts";

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

export const questionsQuery = (storyId: string) =>
  queryOptions({
    queryKey: ["stories", storyId, "questions"],
    queryFn: ({ signal }) => tokenApi<Question[]>("/story/questions", { story: storyId }, signal),
    retry: false,
  });

export const answersQuery = (storyId: string) =>
  queryOptions({
    queryKey: ["stories", storyId, "answers"],
    queryFn: ({ signal }) => tokenApi<Answer[]>("/story/questions/answers", { story: storyId }, signal),
    retry: false,
  });

export function useQuestions(storyId: string) {
  return useQuery(questionsQuery(storyId));
}

export function useAnswers(storyId: string) {
  return useQuery(answersQuery(storyId));
}
