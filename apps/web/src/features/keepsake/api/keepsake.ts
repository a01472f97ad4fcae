import type { Keepsake, KeepsakeSettings, KeepsakeShare } from "@hikaya/contracts";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { type Language, useLanguage } from "../../../lib/i18n.ts";

/** The family's keepsake; `?lang=` picks the thumbnails, as every media read does. */
const keepsakeQuery = (language: Language) =>
  queryOptions({
    queryKey: ["keepsake", "mine", language],
    queryFn: ({ signal }) => api<Keepsake>(`/keepsake?lang=${language}`, { signal }),
  });

export function useKeepsake() {
  return useQuery(keepsakeQuery(useLanguage()));
}

/** Every change answers with the whole keepsake, which replaces the cached one. */
function useKeepsakeChange<T>(call: (value: T, language: Language) => Promise<Keepsake>) {
  const language = useLanguage();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (value: T) => call(value, language),
    onSuccess: (keepsake) => client.setQueryData(keepsakeQuery(language).queryKey, keepsake),
  });
}

export const useSaveKeepsake = () =>
  useKeepsakeChange((settings: KeepsakeSettings, language) =>
    api<Keepsake>(`/keepsake?lang=${language}`, { method: "PUT", body: settings }),
  );

export const useShareKeepsake = () =>
  useKeepsakeChange((expiry: KeepsakeShare["expiry"], language) =>
    api<Keepsake>("/keepsake/share", { body: { expiry, language } }),
  );

export const useRevokeLink = () =>
  useKeepsakeChange((id: string, language) =>
    api<Keepsake>(`/keepsake/links/${encodeURIComponent(id)}/revoke?lang=${language}`, { method: "POST" }),
  );
