/** The facilitator inbox's calls to /api/admin/conversations… (JSON; voice replies as multipart). */
import type { ChatMessage, ConversationList, ConversationPerson, MessagesPage } from "@hikaya/contracts";
import { queryOptions } from "@tanstack/react-query";
import { ApiError, send } from "../../lib/api-client.ts";
import type { OutboxItem } from "../../lib/use-conversation.ts";
import { consoleSession } from "../admin-session.ts";
import { consoleApi } from "../api.ts";

export const inboxQueries = {
  conversations: () =>
    queryOptions({
      queryKey: ["admin", "inbox", "conversations"],
      queryFn: () => consoleApi<ConversationList>("/admin/conversations?limit=100"),
    }),
  person: (userId: string) =>
    queryOptions({
      queryKey: ["admin", "inbox", "person", userId],
      queryFn: () => consoleApi<ConversationPerson>(`/admin/conversations/${encodeURIComponent(userId)}/person`),
    }),
};

export function fetchConversationPage(userId: string, before?: string): Promise<MessagesPage> {
  return consoleApi<MessagesPage>(
    `/admin/conversations/${encodeURIComponent(userId)}/messages?limit=50${before ? `&before=${before}` : ""}`,
  );
}

/** A facilitator's reply: multipart, like the family's side, with the same idempotency key. */
export async function sendReply(userId: string, item: OutboxItem): Promise<ChatMessage> {
  const form = new FormData();
  form.set("clientId", item.clientId);
  if (item.messageType === "audio" && item.blob) {
    form.set("message", "audio");
    form.set("messageType", "audio");
    if (item.durationSeconds !== undefined) form.set("durationSeconds", item.durationSeconds.toFixed(1));
    form.set("audio", item.blob, "voice.webm");
  } else {
    form.set("message", item.text ?? "");
    form.set("messageType", "text");
  }
  const res = await send(
    `/api/admin/conversations/${encodeURIComponent(userId)}/messages`,
    { method: "POST", body: form },
    consoleSession,
  );
  const body = (await res.json().catch(() => null)) as (ChatMessage & { code?: string; message?: string }) | null;
  if (!res.ok || !body) {
    const code = (
      typeof body?.code === "string" ? body.code : res.status >= 500 ? "internal_error" : "bad_request"
    ) as ApiError["code"];
    throw new ApiError(code, body?.message ?? res.statusText, res.status);
  }
  return body;
}

export function markConversationRead(userId: string, upTo: string) {
  return consoleApi<{ ok: true }>(`/admin/conversations/${encodeURIComponent(userId)}/read`, { body: { upTo: Number(upTo) } });
}
