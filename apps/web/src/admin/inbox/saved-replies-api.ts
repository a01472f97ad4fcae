/** The team's saved replies (/api/admin/replies): every operator reads them, admins write them. */
import type { SavedReply, SavedReplyInput } from "@hikaya/contracts";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { consoleApi } from "../api.ts";

const repliesKey = ["admin", "replies"] as const;

export const savedRepliesQuery = () =>
  queryOptions({ queryKey: repliesKey, queryFn: () => consoleApi<SavedReply[]>("/admin/replies"), staleTime: 60_000 });

/** Saves a new reply (no id) or changes one; the list and the audit log are read again. */
export function useSaveReply() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: string; input: SavedReplyInput }) =>
      consoleApi<SavedReply>(id ? `/admin/replies/${encodeURIComponent(id)}` : "/admin/replies", {
        method: id ? "PUT" : "POST",
        body: input,
      }),
    onSuccess: () => invalidate(client),
  });
}

export function useDeleteReply() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => consoleApi<{ ok: true }>(`/admin/replies/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => invalidate(client),
  });
}

const invalidate = (client: ReturnType<typeof useQueryClient>) =>
  Promise.all([repliesKey, ["admin", "audit"]].map((queryKey) => client.invalidateQueries({ queryKey })));
