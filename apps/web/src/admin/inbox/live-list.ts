/**
 * The inbox list kept current from the live stream: a pushed message moves its conversation to the top with its
 * new last message, unread count and waiting state, in every loaded list, instead of every list being read again
 * (a whole page per message, per facilitator, in a burst). Only what the list cannot know by itself is read again:
 * a conversation it has not loaded (its name and phone), or one a search might now find by the new text.
 */
import type { ChatMessage, ConversationList, ConversationSummary, InboxFilter } from "@hikaya/contracts";
import type { InfiniteData } from "@tanstack/react-query";

export type LoadedList = InfiniteData<ConversationList, string | null>;
/** What a list shows: its search and filter, as in its query key. */
export interface ListView {
  q: string;
  filter: InboxFilter | null;
}

/** Whether a conversation belongs in a list with this filter (the server's rules, messages.repository.ts). */
function fits(summary: ConversationSummary, filter: InboxFilter | null): boolean {
  if (filter === "unread") return summary.unread > 0;
  if (filter === "waiting") return summary.waiting;
  return true;
}

/**
 * The list with `message` applied: its conversation first, with the message as its last one; a family's message
 * adds one unread and leaves it waiting, a facilitator's answers it (the server marks the conversation read for the
 * facilitators then). The same list when it already has this message (a replay after a reconnect); "refetch" when
 * the list cannot place it by itself.
 */
export function applyLiveMessage(list: LoadedList, message: ChatMessage, view: ListView): LoadedList | "refetch" {
  const fromFamily = message.senderRole === "user";
  let found: ConversationSummary | null = null;
  for (const page of list.pages) for (const c of page.conversations) if (c.userId === message.conversation) found ??= c;
  if (!found) {
    // A facilitator's answer cannot bring a conversation into the unread or waiting list; anything else may need
    // a row this list does not have, or a search match only the server can tell.
    if (!fromFamily && (view.filter === "unread" || view.filter === "waiting")) return list;
    return "refetch";
  }
  if (found.lastMessage && Number(found.lastMessage._id) >= Number(message._id)) return list;
  const updated: ConversationSummary = {
    ...found,
    lastMessage: message,
    lastMessageAt: message.createdAt,
    unread: fromFamily ? found.unread + 1 : 0,
    waiting: fromFamily,
  };
  const pages = list.pages.map((page, i) => {
    const rest = page.conversations.filter((c) => c.userId !== message.conversation);
    return i === 0 && fits(updated, view.filter)
      ? { ...page, conversations: [updated, ...rest] }
      : { ...page, conversations: rest };
  });
  return { ...list, pages };
}

/** The list once the facilitators have read a conversation: nothing unread in it (and out of the unread filter). */
export function markReadInList(list: LoadedList, conversation: string, view: ListView): LoadedList {
  let changed = false;
  const pages = list.pages.map((page) => {
    if (!page.conversations.some((c) => c.userId === conversation && c.unread > 0)) return page;
    changed = true;
    const conversations = page.conversations
      .map((c) => (c.userId === conversation ? { ...c, unread: 0 } : c))
      .filter((c) => fits(c, view.filter));
    return { ...page, conversations };
  });
  return changed ? { ...list, pages } : list;
}
