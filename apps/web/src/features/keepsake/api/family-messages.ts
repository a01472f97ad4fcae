import type { FamilyMessage, FamilyMessageStatusChange } from "@hikaya/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { familyMessagesQuery } from "../../../lib/family-messages.ts";

/** A changed message replaces its old self in the cached list; the pending count follows. */
function useFamilyChange<T>(call: (value: T) => Promise<FamilyMessage>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (message) => {
      client.setQueryData(familyMessagesQuery.queryKey, (list) => {
        if (!list) return list;
        const messages = list.messages.map((m) => (m.id === message.id ? message : m));
        return { messages, unread: messages.filter((m) => m.status === "pending").length };
      });
      // The book shows what is shown and answered: its copy is stale now.
      void client.invalidateQueries({ queryKey: ["keepsake"] });
    },
  });
}

export const useSetFamilyStatus = () =>
  useFamilyChange(({ id, status }: { id: string; status: FamilyMessageStatusChange["status"] }) =>
    api<FamilyMessage>(`/family-messages/${encodeURIComponent(id)}/status`, { body: { status } }),
  );

const extensionOf = (type: string) => (type.includes("ogg") ? "ogg" : type.includes("mp4") ? "m4a" : "webm");

export const useAnswerQuestion = () =>
  useFamilyChange(({ id, blob }: { id: string; blob: Blob }) => {
    const form = new FormData();
    form.append("audio", new File([blob], `answer.${extensionOf(blob.type)}`, { type: blob.type || "audio/webm" }));
    return api<FamilyMessage>(`/family-messages/${encodeURIComponent(id)}/answer`, { body: form });
  });
