// @vitest-environment jsdom
import type { ChatMessage } from "@hikaya/contracts";
import { act, renderHook, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../test/fake-event-source.ts";
import { ApiError } from "./api-client.ts";
import { type ConversationSource, type OutboxItem, useConversation } from "./use-conversation.ts";

const message = (id: number, extra: Partial<ChatMessage> = {}): ChatMessage =>
  ({
    _id: String(id),
    from: "u1",
    messageType: "text",
    message: `m${id}`,
    createdAt: new Date().toISOString(),
    ...extra,
  }) as ChatMessage;

/** A conversation on a fake server: pages of 2, newest first, and a send that the test controls. */
function fakeSource(all: ChatMessage[], send: (item: OutboxItem) => Promise<ChatMessage>): ConversationSource {
  return {
    outboxKey: "test.u1",
    livePath: "/api/messages/stream",
    liveToken: async () => "token",
    loadPage: async (before) => {
      const older = before ? all.filter((m) => Number(m._id) < Number(before)) : all;
      const page = older.slice(-2);
      return { messages: page, hasMore: older.length > page.length };
    },
    send,
  };
}

let online = true;
beforeEach(() => {
  FakeEventSource.opened = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  online = true;
  vi.spyOn(navigator, "onLine", "get").mockImplementation(() => online);
  localStorage.clear();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("useConversation", () => {
  it("shows the newest page, pages back on demand, and merges live messages once each", async () => {
    const source = fakeSource([message(1), message(2), message(3), message(4)], async () => message(99));
    const { result } = renderHook(() => useConversation(source));
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.messages.map((m) => m._id)).toEqual(["3", "4"]);
    expect(result.current.hasMore).toBe(true);

    await act(() => result.current.loadOlder());
    expect(result.current.messages.map((m) => m._id)).toEqual(["1", "2", "3", "4"]);
    expect(result.current.hasMore).toBe(false);

    // The stream follows from the newest id we have, and a replayed message is not shown twice.
    await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    const stream = FakeEventSource.latest();
    expect(stream.params.get("after")).toBe("4");
    act(() => {
      stream.ready();
      stream.message(message(5));
      stream.message(message(5));
      stream.message(message(4));
    });
    expect(result.current.messages.map((m) => m._id)).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("keeps text typed offline, survives a reload, and sends it once when the connection returns", async () => {
    const sent: OutboxItem[] = [];
    const send = async (item: OutboxItem) => {
      sent.push(item);
      return message(10, { message: item.text ?? "", clientId: item.clientId } as Partial<ChatMessage>);
    };
    const first = renderHook(() => useConversation(fakeSource([], send)));
    await waitFor(() => expect(first.result.current.loading).toBe(false));
    online = false;
    await act(() => first.result.current.send({ messageType: "text", text: "written offline" }));
    expect(first.result.current.pending.map((p) => [p.text, p.status])).toEqual([["written offline", "queued"]]);
    expect(sent).toHaveLength(0);
    first.unmount();

    // A reload while still offline: the queued text is still there.
    const second = renderHook(() => useConversation(fakeSource([], send)));
    await waitFor(() => expect(second.result.current.pending.map((p) => p.text)).toEqual(["written offline"]));
    online = true;
    await act(async () => {
      window.dispatchEvent(new Event("online"));
    });
    await waitFor(() => expect(second.result.current.pending).toHaveLength(0));
    expect(sent.map((s) => s.text)).toEqual(["written offline"]);
    expect(second.result.current.messages.map((m) => m.message)).toEqual(["written offline"]);
    expect(localStorage.getItem("hikaya.outbox.test.u1")).toBeNull();
  });

  it("marks a refused message failed with a retry, and a retried message is sent with the same client id", async () => {
    const attempts: string[] = [];
    let refuse = true;
    const send = async (item: OutboxItem) => {
      attempts.push(item.clientId);
      if (refuse) throw new ApiError("validation_failed", "no", 400);
      return message(20, { clientId: item.clientId } as Partial<ChatMessage>);
    };
    const { result } = renderHook(() => useConversation(fakeSource([], send)));
    await waitFor(() => expect(result.current.loading).toBe(false));
    await act(async () => {
      await result.current.send({ messageType: "text", text: "hello" }).catch(() => undefined);
    });
    expect(result.current.pending.map((p) => p.status)).toEqual(["failed"]);

    refuse = false;
    const clientId = result.current.pending[0]?.clientId ?? "";
    await act(() => result.current.retry(clientId));
    expect(result.current.pending).toHaveLength(0);
    expect(attempts).toEqual([clientId, clientId]);
  });

  it("queues a message the network lost, instead of failing it", async () => {
    const send = async () => {
      throw new ApiError("network", "offline", 0);
    };
    const { result } = renderHook(() => useConversation(fakeSource([], send)));
    await waitFor(() => expect(result.current.loading).toBe(false));
    await act(() => result.current.send({ messageType: "text", text: "lost" }));
    expect(result.current.pending.map((p) => p.status)).toEqual(["queued"]);
  });
});
