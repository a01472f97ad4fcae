import type { Keepsake, KeepsakeSettings, KeepsakeShare, Recording, RecordingTranscriptInput } from "@hikaya/contracts";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, send } from "../../../lib/api-client.ts";
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

/**
 * "Download everything": the ZIP the server streams (GET /api/keepsake/export), saved under its own name. The token
 * goes in a header, never in an address, so the file comes through fetch and is handed to the browser as a download.
 */
export async function downloadKeepsake(language: Language): Promise<void> {
  const res = await send(`/api/keepsake/export?lang=${language}`, { method: "GET" });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { code?: string; message?: string } | null;
    throw new ApiError((body?.code as ApiError["code"]) ?? "internal_error", body?.message ?? res.statusText, res.status);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = "hikaya-keepsake.zip";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The storyteller's words for one of their recordings (PUT /api/recordings/{id}/transcript), saved with the version
 * they edited; the keepsake is read again afterwards, since the book prints them.
 */
export function useSaveRecordingWords() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, transcript, version }: { id: string } & RecordingTranscriptInput) =>
      api<Recording>(`/recordings/${encodeURIComponent(id)}/transcript`, { method: "PUT", body: { transcript, version } }),
    onSettled: () => client.invalidateQueries({ queryKey: ["keepsake", "mine"] }),
  });
}
