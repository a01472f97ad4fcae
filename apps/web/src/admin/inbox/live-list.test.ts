import type { ChatMessage, ConversationSummary } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import { applyLiveMessage, type ListView, type LoadedList, markReadInList } from "./live-list.ts";

const ALL: ListView = { q: "", filter: null };

function summary(userId: string, lastId: number, extra: Partial<ConversationSummary> = {}): ConversationSummary {
  return {
    userId,
    name: `Name ${userId}`,
    phone: null,
    email: null,
    lastMessage: message(userId, lastId, "user"),
    lastMessageAt: `2026-01-01T00:00:${String(lastId).padStart(2, "0")}.000Z`,
    unread: 1,
    waiting: true,
    assignedTo: null,
    ...extra,
  };
}

function message(conversation: string, id: number, senderRole: ChatMessage["senderRole"]): ChatMessage {
  return {
    _id: String(id),
    conversation,
    from: senderRole === "user" ? conversation : "facilitator-1",
    senderRole,
    messageType: "text",
    message: `message ${id}`,
    durationSeconds: null,
    clientId: null,
    createdAt: `2026-01-01T00:01:${String(id).padStart(2, "0")}.000Z`,
  };
}

const counts = { all: 4, mine: 0, unassigned: 4 };

/** Two loaded pages, newest first: a, b | c, d. */
function twoPages(): LoadedList {
  return {
    pages: [
      { conversations: [summary("a", 40), summary("b", 30, { unread: 0, waiting: false })], nextCursor: "c1", counts },
      { conversations: [summary("c", 20, { unread: 2 }), summary("d", 10)], nextCursor: null, counts },
    ],
    pageParams: [null, "c1"],
  };
}

const ids = (list: LoadedList | "refetch") =>
  list === "refetch" ? list : list.pages.map((p) => p.conversations.map((c) => c.userId));
const row = (list: LoadedList | "refetch", userId: string) =>
  list === "refetch" ? undefined : list.pages.flatMap((p) => p.conversations).find((c) => c.userId === userId);

describe("applyLiveMessage", () => {
  it("moves a family's conversation from a later page to the top, one more unread, waiting, with its new last message", () => {
    const m = message("c", 50, "user");
    const next = applyLiveMessage(twoPages(), m, ALL);
    expect(ids(next)).toEqual([["c", "a", "b"], ["d"]]);
    expect(row(next, "c")).toMatchObject({
      lastMessage: m,
      lastMessageAt: m.createdAt,
      unread: 3,
      waiting: true,
      name: "Name c",
    });
  });

  it("a facilitator's answer moves it to the top read and no longer waiting", () => {
    const next = applyLiveMessage(twoPages(), message("a", 51, "facilitator"), ALL);
    expect(ids(next)).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(row(next, "a")).toMatchObject({ unread: 0, waiting: false, lastMessage: { _id: "51" } });
  });

  it("leaves the list as it is for a message it already shows (a replay after a reconnect)", () => {
    const list = twoPages();
    expect(applyLiveMessage(list, message("c", 20, "user"), ALL)).toBe(list);
  });

  it("asks for a read of the list for a conversation it has not loaded, or one a search may now find", () => {
    expect(applyLiveMessage(twoPages(), message("new", 60, "user"), ALL)).toBe("refetch");
    expect(applyLiveMessage(twoPages(), message("new", 60, "user"), { q: "message 60", filter: null })).toBe("refetch");
  });

  it("keeps each filter's rule: an answered conversation leaves the waiting and unread lists, and cannot enter them", () => {
    const waiting: ListView = { q: "", filter: "waiting" };
    const unread: ListView = { q: "", filter: "unread" };
    expect(ids(applyLiveMessage(twoPages(), message("c", 52, "facilitator"), waiting))).toEqual([["a", "b"], ["d"]]);
    expect(ids(applyLiveMessage(twoPages(), message("c", 52, "facilitator"), unread))).toEqual([["a", "b"], ["d"]]);
    const list = twoPages();
    expect(applyLiveMessage(list, message("elsewhere", 53, "facilitator"), waiting)).toBe(list);
  });
});

describe("markReadInList", () => {
  it("clears the conversation's unread count where it is, and takes it out of the unread filter", () => {
    expect(row(markReadInList(twoPages(), "c", ALL), "c")).toMatchObject({ unread: 0, waiting: true });
    expect(ids(markReadInList(twoPages(), "c", { q: "", filter: "unread" }))).toEqual([["a", "b"], ["d"]]);
  });

  it("leaves a list with nothing unread there as it is", () => {
    const list = twoPages();
    expect(markReadInList(list, "b", ALL)).toBe(list);
  });
});
