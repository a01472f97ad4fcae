import type { InstructionLocation } from "@hikaya/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api-client.ts";

/** Instruction videos load by location name; failures are silent (spec section 8). */
export const instructionQuery = (location: InstructionLocation) =>
  queryOptions({
    queryKey: ["instruction", location],
    queryFn: () => api<{ media: string | null }>(`/instruction?location=${encodeURIComponent(location)}`),
    staleTime: 5 * 60_000,
    retry: false,
  });

export function useInstruction(location: InstructionLocation) {
  const query = useQuery(instructionQuery(location));
  return query.data?.media ?? null;
}
