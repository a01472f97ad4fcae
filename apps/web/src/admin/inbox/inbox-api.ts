/** The facilitator inbox's calls to /api/admin/conversations… (JSON; voice replies as multipart). */
import type {
  ChatMessage,
  ConversationAssignment,
  ConversationList,
  ConversationNote,
  ConversationPerson,
  InboxFilter,
  MessagesPage,
  Operator,
} from "@hikaya/contracts";
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { ApiError, send } from "../../lib/api-client.ts";
import type { OutboxItem } from "../../lib/use-conversation.ts";
import { consoleSession } from "../admin-session.ts";
import { consoleApi } from "../api.ts";

/** Every loaded inbox list, whatever its search and filter (the live stream refreshes them all). */
export const conversationsKey = ["admin", "inbox", "conversations"] as const;
/** Every loaded conversation's person panel (profile, progress, assignee). */
export const personKey = ["admin", "inbox", "person"] as const;
/** Every loaded conversation's private notes. */
export const notesKey = ["admin", "inbox", "notes"] as const;
/** The navigation's waiting count and the tab title's unread count (waiting-count.ts). */
export const badgeKey = ["admin", "inbox", "waiting"] as const;

export const inboxQueries = {
  /** One search and filter, page after page ("Load older" asks for the next cursor). */
  conversations: (q: string, filter: InboxFilter | null) =>
    infiniteQueryOptions({
      queryKey: [...conversationsKey, { q, filter }],
      queryFn: ({ pageParam }) => {
        const params = new URLSearchParams({ limit: "30" });
        if (q) params.set("q", q);
        if (filter) params.set("filter", filter);
        if (pageParam) params.set("cursor", pageParam);
        return consoleApi<ConversationList>(`/admin/conversations?${params}`);
      },
      initialPageParam: null as string | null,
      getNextPageParam: (last) => last.nextCursor,
      placeholderData: (previous) => previous,
    }),
  person: (userId: string) =>
    queryOptions({
      queryKey: [...personKey, userId],
      queryFn: () => consoleApi<ConversationPerson>(`/admin/conversations/${encodeURIComponent(userId)}/person`),
    }),
  notes: (userId: string) =>
    queryOptions({
      queryKey: [...notesKey, userId],
      queryFn: () => consoleApi<ConversationNote[]>(`/admin/conversations/${encodeURIComponent(userId)}/notes`),
    }),
  operators: () =>
    queryOptions({
      queryKey: ["admin", "inbox", "operators"],
      queryFn: () => consoleApi<Operator[]>("/admin/operators"),
      staleTime: 60_000,
    }),
};

export function addNote(userId: string, text: string) {
  return consoleApi<ConversationNote>(`/admin/conversations/${encodeURIComponent(userId)}/notes`, { body: { text } });
}

/** Hands a conversation to an operator, or to nobody (admins, or its owner). */
export function handOver(userId: string, operatorId: string | null) {
  return consoleApi<ConversationAssignment>(`/admin/conversations/${encodeURIComponent(userId)}/assignee`, {
    method: "PUT",
    body: { operatorId },
  });
}

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

/** Assign a conversation to the caller (`true`) or unassign it. */
export function assignConversation(userId: string, toMe: boolean) {
  return consoleApi<ConversationAssignment>(`/admin/conversations/${encodeURIComponent(userId)}/assignee`, {
    method: toMe ? "POST" : "DELETE",
  });
}
