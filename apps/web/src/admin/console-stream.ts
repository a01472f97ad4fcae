/**
 * The console's one live stream per browser. Each console page used to hold up to three EventSources (the
 * navigation's count, the inbox list, the open conversation): over HTTP/1.1 two tabs took all six connections to the
 * host, so replies stayed "sending" and pages stopped loading, and the server refuses a person's sixth stream. Now
 * one tab, the leader (whoever holds the Web Lock), holds the only EventSource and relays its events to the other
 * tabs through a BroadcastChannel; when the leader tab closes, its lock is released and another tab takes over from
 * the last message id it saw, so the server replays what the handover missed. Without Web Locks or
 * BroadcastChannel each tab holds one stream of its own, still one instead of three.
 */
import type { ChatMessage, LiveAssignment, LiveNote } from "@hikaya/contracts";
import { connectLiveMessages, type LiveOptions, type LiveStatus } from "../lib/live-messages.ts";
import { consoleToken } from "./admin-session.ts";

export interface ConsoleStreamListener {
  onMessage?(message: ChatMessage): void;
  onAssignment?(event: LiveAssignment): void;
  onNote?(event: LiveNote): void;
  onStatus?(status: LiveStatus): void;
  /** After every (re)connection of the stream, once its replay is done; at once when it is already live. */
  onReady?(): void;
}

type Relayed =
  | { type: "message"; message: ChatMessage }
  | { type: "assignment"; event: LiveAssignment }
  | { type: "note"; event: LiveNote }
  | { type: "status"; status: LiveStatus }
  | { type: "ready" }
  /** A tab that just started asks the leader where the stream stands. */
  | { type: "hello" };

interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<unknown>;
}

export interface ConsoleStreamEnv {
  connect: typeof connectLiveMessages;
  token: LiveOptions["token"];
  locks: LockManagerLike | null;
  channel: (() => BroadcastChannel) | null;
}

const NAME = "hikaya.console-stream";
const PATH = "/api/admin/messages/stream";

function browserEnv(): ConsoleStreamEnv {
  const locks = typeof navigator !== "undefined" ? ((navigator as { locks?: LockManagerLike }).locks ?? null) : null;
  const shared = locks !== null && typeof BroadcastChannel !== "undefined";
  return {
    connect: connectLiveMessages,
    token: consoleToken,
    locks: shared ? locks : null,
    channel: shared ? () => new BroadcastChannel(NAME) : null,
  };
}

export class ConsoleStream {
  readonly #env: ConsoleStreamEnv;
  readonly #listeners = new Set<ConsoleStreamListener>();
  #channel: BroadcastChannel | null = null;
  #abort: AbortController | null = null;
  #releaseLock: (() => void) | null = null;
  #closeSource: (() => void) | null = null;
  #lastId: string | null = null;
  #status: LiveStatus = "connecting";
  #ready = false;
  #running = false;

  constructor(env: ConsoleStreamEnv = browserEnv()) {
    this.#env = env;
  }

  /** True while this tab holds the EventSource. */
  get leading(): boolean {
    return this.#closeSource !== null;
  }

  subscribe(listener: ConsoleStreamListener): () => void {
    this.#listeners.add(listener);
    if (!this.#running) this.#start();
    listener.onStatus?.(this.#status);
    if (this.#ready) listener.onReady?.();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #start() {
    this.#running = true;
    const { locks, channel } = this.#env;
    if (!locks || !channel) {
      this.#lead();
      return;
    }
    this.#channel = channel();
    this.#channel.onmessage = (event: MessageEvent<Relayed>) => {
      if (event.data.type === "hello") {
        if (this.leading) this.#answerHello();
        return;
      }
      this.#dispatch(event.data);
    };
    this.#channel.postMessage({ type: "hello" } satisfies Relayed);
    const abort = new AbortController();
    this.#abort = abort;
    locks
      .request(NAME, { signal: abort.signal }, () => {
        if (!this.#running) return Promise.resolve();
        // Held until this tab stops (or closes, which releases it): the other tabs wait in the lock's queue.
        return new Promise<void>((resolve) => {
          this.#releaseLock = resolve;
          this.#lead();
        });
      })
      .catch(() => undefined); // aborted while waiting: this tab stopped before it led
  }

  #lead() {
    this.#closeSource = this.#env.connect({
      path: PATH,
      token: this.#env.token,
      after: this.#lastId,
      onMessage: (message) => this.#relay({ type: "message", message }),
      onAssignment: (event) => this.#relay({ type: "assignment", event }),
      onNote: (event) => this.#relay({ type: "note", event }),
      onStatus: (status) => this.#relay({ type: "status", status }),
      onReady: () => this.#relay({ type: "ready" }),
    });
  }

  #answerHello() {
    this.#channel?.postMessage({ type: "status", status: this.#status } satisfies Relayed);
    if (this.#ready) this.#channel?.postMessage({ type: "ready" } satisfies Relayed);
  }

  #relay(event: Relayed) {
    this.#channel?.postMessage(event);
    this.#dispatch(event);
  }

  #dispatch(event: Relayed) {
    const listeners = [...this.#listeners];
    switch (event.type) {
      case "message":
        // The last one, not the highest id: the server resumes at that message's place in its order, and the stream of
        // every conversation follows commit order, which is not id order across conversations.
        this.#lastId = event.message._id;
        for (const l of listeners) l.onMessage?.(event.message);
        break;
      case "assignment":
        for (const l of listeners) l.onAssignment?.(event.event);
        break;
      case "note":
        for (const l of listeners) l.onNote?.(event.event);
        break;
      case "status":
        this.#status = event.status;
        if (event.status !== "live") this.#ready = false;
        for (const l of listeners) l.onStatus?.(event.status);
        break;
      case "ready":
        this.#ready = true;
        this.#status = "live";
        for (const l of listeners) l.onReady?.();
        break;
      case "hello":
        break;
    }
  }

  #stop() {
    this.#running = false;
    this.#closeSource?.();
    this.#closeSource = null;
    this.#releaseLock?.();
    this.#releaseLock = null;
    this.#abort?.abort();
    this.#abort = null;
    this.#channel?.close();
    this.#channel = null;
    this.#ready = false;
    this.#status = "connecting";
  }
}

/** This tab's share of the browser's console stream. */
export const consoleStream = new ConsoleStream();

/**
 * One conversation of the console's stream, in `connectLiveMessages`'s shape for `useConversation`. The shared
 * stream was live before this conversation was read, so on each (re)connection the newest page is read again for
 * what came between (`latest`); messages are merged by id, so one seen twice is shown once.
 */
export function conversationOfConsoleStream(conversation: string, latest: () => Promise<ChatMessage[]>) {
  return (options: LiveOptions): (() => void) => {
    let newest = options.after;
    let open = true;
    const deliver = (message: ChatMessage) => {
      if (message.conversation !== conversation) return;
      if (!newest || Number(message._id) > Number(newest)) newest = message._id;
      options.onMessage(message);
    };
    const catchUp = async () => {
      const since = newest;
      const messages = await latest().catch(() => []);
      if (!open) return;
      for (const m of messages) if (!since || Number(m._id) > Number(since)) deliver(m);
    };
    const unsubscribe = consoleStream.subscribe({
      onMessage: deliver,
      onStatus: (status) => options.onStatus?.(status),
      onReady: () => {
        void catchUp();
        options.onReady?.();
      },
    });
    return () => {
      open = false;
      unsubscribe();
    };
  };
}
