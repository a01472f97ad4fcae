// @vitest-environment jsdom
import type { ChatMessage } from "@hikaya/contracts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../test/fake-event-source.ts";
import { connectLiveMessages, type LiveStatus } from "./live-messages.ts";

const message = (id: number): ChatMessage =>
  ({ _id: String(id), from: "u1", messageType: "text", message: `m${id}`, createdAt: new Date().toISOString() }) as ChatMessage;

beforeEach(() => {
  FakeEventSource.opened = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("live messages", () => {
  it("reconnects after a drop with a fresh token and catches up from the last id it has", async () => {
    const tokens = ["token-1", "token-2"];
    const token = vi.fn(async () => tokens.shift() ?? null);
    const received: string[] = [];
    const statuses: LiveStatus[] = [];
    const stop = connectLiveMessages({
      path: "/api/messages/stream",
      after: "7",
      token,
      onMessage: (m) => received.push(m._id),
      onStatus: (s) => statuses.push(s),
    });
    await vi.advanceTimersByTimeAsync(0);
    const first = FakeEventSource.latest();
    expect(first.params.get("access_token")).toBe("token-1");
    expect(first.params.get("after")).toBe("7");
    first.ready();
    first.message(message(8));
    first.message(message(9));

    // The token expired: the server ends the stream; the next connection asks for a fresh token.
    first.drop();
    expect(statuses.at(-1)).toBe("offline");
    await vi.advanceTimersByTimeAsync(1000);
    const second = FakeEventSource.latest();
    expect(second).not.toBe(first);
    expect(second.params.get("access_token")).toBe("token-2");
    expect(second.params.get("after")).toBe("9");
    second.ready();
    expect(statuses.at(-1)).toBe("live");
    expect(received).toEqual(["8", "9"]);
    stop();
  });

  it("hands a facilitator's stream's assignment events to onAssignment, apart from messages", async () => {
    const assignments: unknown[] = [];
    const received: string[] = [];
    const stop = connectLiveMessages({
      path: "/api/admin/messages/stream",
      after: null,
      token: async () => "t",
      onMessage: (m) => received.push(m._id),
      onAssignment: (event) => assignments.push(event),
    });
    await vi.advanceTimersByTimeAsync(0);
    const stream = FakeEventSource.latest();
    stream.ready();
    stream.event("assignment", { conversation: "u1" });
    stream.message(message(3));
    stream.event("assignment", { conversation: null });
    expect(assignments).toEqual([{ conversation: "u1" }, { conversation: null }]);
    expect(received).toEqual(["3"]);
    stop();
  });

  it("backs off from 1 s doubling while the server stays away, and starts over once live", async () => {
    const stop = connectLiveMessages({ path: "/s", after: null, token: async () => "t", onMessage: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    FakeEventSource.latest().drop();
    await vi.advanceTimersByTimeAsync(999);
    expect(FakeEventSource.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeEventSource.opened).toHaveLength(2);
    FakeEventSource.latest().drop();
    await vi.advanceTimersByTimeAsync(1999);
    expect(FakeEventSource.opened).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeEventSource.opened).toHaveLength(3);
    FakeEventSource.latest().ready();
    FakeEventSource.latest().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeEventSource.opened).toHaveLength(4);
    stop();
  });

  it("stays offline without a session, and stops for good when closed", async () => {
    const statuses: LiveStatus[] = [];
    const stop = connectLiveMessages({
      path: "/s",
      after: null,
      token: async () => null,
      onMessage: () => undefined,
      onStatus: (s) => statuses.push(s),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.opened).toHaveLength(0);
    expect(statuses).toEqual(["offline"]);
    stop();

    const stop2 = connectLiveMessages({ path: "/s", after: null, token: async () => "t", onMessage: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    stop2();
    expect(FakeEventSource.latest().readyState).toBe(FakeEventSource.CLOSED);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeEventSource.opened).toHaveLength(1);
  });
});
