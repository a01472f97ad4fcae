// @vitest-environment jsdom
import { BroadcastChannel as NodeBroadcastChannel } from "node:worker_threads";
import type { ChatMessage } from "@hikaya/contracts";
import { describe, expect, it, vi } from "vitest";
import type { LiveOptions } from "../lib/live-messages.ts";
import { ConsoleStream, type ConsoleStreamEnv } from "./console-stream.ts";

/** One browser's Web Locks: one holder per name, the others queued in order; an abort leaves the queue. */
function fakeLocks() {
  let held = false;
  const queue: (() => void)[] = [];
  const next = () => {
    const run = queue.shift();
    if (run) run();
  };
  return {
    request(_name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>) {
      return new Promise<void>((resolve, reject) => {
        const run = () => {
          held = true;
          void callback().finally(() => {
            held = false;
            resolve();
            next();
          });
        };
        if (!held) return run();
        queue.push(run);
        options.signal?.addEventListener("abort", () => {
          const at = queue.indexOf(run);
          if (at >= 0) queue.splice(at, 1);
          reject(new DOMException("aborted", "AbortError"));
        });
      });
    },
  };
}

/** The EventSources the tabs opened: each with its options, to push events through and to see it closed. */
function fakeServer() {
  const sources: { options: LiveOptions; closed: boolean }[] = [];
  const connect = (options: LiveOptions) => {
    const source = { options, closed: false };
    sources.push(source);
    return () => {
      source.closed = true;
    };
  };
  return { sources, connect, open: () => sources.filter((s) => !s.closed) };
}

const message = (id: string, conversation = "c1") =>
  ({ _id: id, conversation, text: `m${id}`, messageType: "text", createdAt: "2030-01-01T00:00:00Z" }) as unknown as ChatMessage;

describe("the console's live stream, shared between tabs", () => {
  it("opens one EventSource for every page of three tabs, relays each event to all, and hands over when the leader goes", async () => {
    const server = fakeServer();
    const locks = fakeLocks();
    const name = `console-stream-test-${Math.random()}`;
    const env: ConsoleStreamEnv = {
      connect: server.connect,
      token: async () => "token",
      locks,
      channel: () => new NodeBroadcastChannel(name) as unknown as BroadcastChannel,
    };
    const tabs = [new ConsoleStream(env), new ConsoleStream(env), new ConsoleStream(env)];
    const seen = tabs.map(() => [] as string[]);
    const stops = tabs.map((tab, i) => {
      // Each console page subscribes three times: the navigation's count, the inbox list, the open conversation.
      const subscriptions = [0, 1, 2].map(() => tab.subscribe({ onMessage: (m) => seen[i]?.push(m._id) }));
      return () => {
        for (const stop of subscriptions) stop();
      };
    });
    await vi.waitFor(() => expect(server.open()).toHaveLength(1));
    expect(tabs.map((t) => t.leading)).toEqual([true, false, false]);

    server.open()[0]?.options.onReady?.();
    // The stream of every conversation follows commit order, not id order: 9 can come before 7.
    server.open()[0]?.options.onMessage(message("9"));
    server.open()[0]?.options.onMessage(message("7"));
    await vi.waitFor(() => expect(seen.map((s) => s.length)).toEqual([6, 6, 6]));

    stops[0]?.(); // the leader tab closes
    await vi.waitFor(() => expect(server.open()).toHaveLength(1));
    expect(server.sources).toHaveLength(2);
    expect(tabs.map((t) => t.leading)).toEqual([false, true, false]);
    // The new leader starts from the last message every tab saw (the stream's order, not the highest id), so the
    // server replays what the handover missed.
    expect(server.open()[0]?.options.after).toBe("7");
    server.open()[0]?.options.onMessage(message("8"));
    await vi.waitFor(() => expect(seen.map((s) => s.at(-1))).toEqual(["7", "8", "8"]));
    stops[1]?.();
    stops[2]?.();
    await vi.waitFor(() => expect(server.open()).toHaveLength(0));
  });

  it("holds one stream of its own in a tab without Web Locks or BroadcastChannel", () => {
    const server = fakeServer();
    const tab = new ConsoleStream({ connect: server.connect, token: async () => "token", locks: null, channel: null });
    const stops = [0, 1, 2].map(() => tab.subscribe({}));
    expect(server.open()).toHaveLength(1);
    for (const stop of stops) stop();
    expect(server.open()).toHaveLength(0);
  });

  it("relays a private note's and a hand-over's events to every tab", async () => {
    const server = fakeServer();
    const name = `console-stream-test-${Math.random()}`;
    const env: ConsoleStreamEnv = {
      connect: server.connect,
      token: async () => "token",
      locks: fakeLocks(),
      channel: () => new NodeBroadcastChannel(name) as unknown as BroadcastChannel,
    };
    const tabs = [new ConsoleStream(env), new ConsoleStream(env)];
    const notes = tabs.map(() => [] as (string | null)[]);
    const handed = tabs.map(() => [] as (string | null | undefined)[]);
    const stops = tabs.map((tab, i) =>
      tab.subscribe({
        onNote: (e) => notes[i]?.push(e.conversation),
        onAssignment: (e) => handed[i]?.push(e.assignee),
      }),
    );
    await vi.waitFor(() => expect(server.open()).toHaveLength(1));
    server.open()[0]?.options.onNote?.({ conversation: "c1" });
    server.open()[0]?.options.onAssignment?.({ conversation: "c1", assignee: "op-2", by: "op-1" });
    await vi.waitFor(() => expect(notes).toEqual([["c1"], ["c1"]]));
    await vi.waitFor(() => expect(handed).toEqual([["op-2"], ["op-2"]]));
    for (const stop of stops) stop();
  });
});
