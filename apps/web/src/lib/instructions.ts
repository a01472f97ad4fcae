import type { InstructionLocation } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { type Language, useLanguage } from "./i18n.ts";

/**
 * Instruction videos load by location name, in the app's language (`lang`: the server gives the other
 * language's video when there is none); failures are silent (spec section 8).
 */
export const instructionQuery = (location: InstructionLocation, language: Language) =>
  queryOptions({
    queryKey: ["instruction", location, language],
    queryFn: () => api<{ media: string | null }>(`/instruction?location=${encodeURIComponent(location)}&lang=${language}`),
    staleTime: 5 * 60_000,
    retry: false,
  });

export function useInstruction(location: InstructionLocation) {
  const query = useQuery(instructionQuery(location, useLanguage()));
  return query.data?.media ?? null;
}
