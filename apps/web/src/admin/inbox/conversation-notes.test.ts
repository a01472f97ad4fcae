import type { ChatMessage, ConversationNote } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import { timelineOf } from "./conversation-notes.tsx";

const message = (id: string, at: string) => ({ _id: id, createdAt: at }) as ChatMessage;
const note = (id: string, at: string) => ({ id, createdAt: at }) as ConversationNote;
const ids = (items: ReturnType<typeof timelineOf>) =>
  items.map((i) => (i.kind === "note" ? `n${i.note.id}` : `m${i.message._id}`));

describe("a conversation's timeline", () => {
  it("puts notes among the messages by time, a note after a message of the same moment", () => {
    const messages = [message("1", "2026-01-01T10:00:00Z"), message("2", "2026-01-01T12:00:00Z")];
    const notes = [note("a", "2026-01-01T11:00:00Z"), note("b", "2026-01-01T12:00:00Z"), note("c", "2026-01-01T09:00:00Z")];
    expect(ids(timelineOf(messages, notes, false))).toEqual(["nc", "m1", "na", "m2", "nb"]);
  });

  it("keeps a note older than the first loaded message back while older messages are still unloaded", () => {
    const messages = [message("5", "2026-01-01T10:00:00Z")];
    const notes = [note("old", "2026-01-01T09:00:00Z"), note("new", "2026-01-01T11:00:00Z")];
    expect(ids(timelineOf(messages, notes, true))).toEqual(["m5", "nnew"]);
  });
});
