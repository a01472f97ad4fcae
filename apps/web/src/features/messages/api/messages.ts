import type { ChatMessage, ConversationSummary, Transcript } from "@hikaya/contracts";
import { tokenApi } from "../../../lib/api-client.ts";
import type { OutboxItem } from "../../../lib/use-conversation.ts";

export interface MessagesPageData {
  messages: ChatMessage[];
  hasMore: boolean;
  greeting: string | null;
  /** What the greeting says, per language; null on older pages. */
  greetingTranscript: Transcript | null;
}

/** POST /api/messages: the newest page, or the page before `before`. */
export function fetchMessages(before?: string): Promise<MessagesPageData> {
  return tokenApi<MessagesPageData>("/messages", before ? { before, limit: 50 } : { limit: 50 });
}

/** POST /api/message/send (multipart, spec section 7), with the client's idempotency key. */
export function sendMessage(item: OutboxItem): Promise<ChatMessage> {
  const form = new FormData();
  form.set("clientId", item.clientId);
  if (item.messageType === "audio" && item.blob) {
    form.set("message", "audio");
    form.set("messageType", "audio");
    if (item.durationSeconds !== undefined) form.set("durationSeconds", item.durationSeconds.toFixed(1));
    form.set(
      "audio",
      item.blob,
      `voice.${item.blob.type.includes("mp4") ? "m4a" : item.blob.type.includes("ogg") ? "ogg" : "webm"}`,
    );
  } else {
    form.set("message", item.text ?? "");
    form.set("messageType", "text");
  }
  return tokenApi<ChatMessage>("/message/send", form);
}

export function markRead(upTo: string): Promise<{ ok: true }> {
  return tokenApi("/messages/read", { upTo: Number(upTo) });
}

export type { ConversationSummary };
