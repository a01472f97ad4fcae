/**
 * The Message Center's live stream (Server-Sent Events). EventSource cannot send headers, so the
 * access token travels as `?access_token=` (accepted by the stream endpoints only). Every event carries
 * the message id; after a drop the browser reconnects with Last-Event-ID, and when it gives up (an
 * expired token, a server restart answering 503) we reconnect ourselves with `?after=<id of the last message>`, so the
 * server replays exactly what was missed.
 */
import type { ChatMessage, LiveAssignment, LiveNote } from "@hikaya/contracts";
import { backoffDelay } from "./backoff.ts";

export type LiveStatus = "connecting" | "live" | "offline";

export interface LiveOptions {
  /** "/api/messages/stream" (own conversation) or "/api/admin/messages/stream" (all, facilitators). */
  path: string;
  /** Extra query parameters (e.g. the facilitators' `conversation`). */
  params?: Record<string, string>;
  /**
   * A fresh access token for each (re)connection: the user app's or the console's session, refreshed
   * when it has expired, so a stream outlives any one token. `refused` is true after the browser gave the stream up
   * (what a 401 looks like to an EventSource): the session then refreshes now, so a session the server ended (a role
   * change, a block) is found out and signed out here instead of retrying the same refused token for ever.
   */
  token(refused?: boolean): Promise<string | null>;
  /** The newest message id the caller already has; null to start from now. */
  after: string | null;
  onMessage(message: ChatMessage): void;
  /** Facilitators' stream: a conversation was assigned or unassigned (events carry no id, nothing is replayed). */
  onAssignment?(event: LiveAssignment): void;
  /** Facilitators' stream: a private note was added to a conversation (no id, nothing replayed). */
  onNote?(event: LiveNote): void;
  onStatus?(status: LiveStatus): void;
  /** Called after every (re)connection once the replay is done. */
  onReady?(): void;
}

export function connectLiveMessages(options: LiveOptions): () => void {
  let lastId = options.after;
  let source: EventSource | null = null;
  let timer: number | null = null;
  let stopped = false;
  let attempt = 0;
  let refused = false;

  const open = async () => {
    if (stopped) return;
    const token = await options.token(refused).catch(() => null);
    refused = false;
    if (stopped) return;
    if (!token) {
      options.onStatus?.("offline");
      return;
    }
    const params = new URLSearchParams({ ...options.params, access_token: token });
    if (lastId) params.set("after", lastId);
    options.onStatus?.("connecting");
    const es = new EventSource(`${options.path}?${params}`);
    source = es;
    es.addEventListener("message", (event) => {
      const message = JSON.parse((event as MessageEvent<string>).data) as ChatMessage;
      // The last one: the server resumes after its place in the stream's order (commit order; a family's own stream
      // is in id order too).
      lastId = message._id;
      options.onMessage(message);
    });
    es.addEventListener("assignment", (event) => {
      options.onAssignment?.(JSON.parse((event as MessageEvent<string>).data) as LiveAssignment);
    });
    es.addEventListener("note", (event) => {
      options.onNote?.(JSON.parse((event as MessageEvent<string>).data) as LiveNote);
    });
    es.addEventListener("ready", () => {
      attempt = 0;
      options.onStatus?.("live");
      options.onReady?.();
    });
    es.addEventListener("error", () => {
      if (stopped) return;
      options.onStatus?.(es.readyState === EventSource.CLOSED ? "offline" : "connecting");
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        refused = true;
        const delay = backoffDelay(attempt, 1000, 15_000);
        attempt++;
        timer = window.setTimeout(() => void open(), delay);
      }
    });
  };

  const onOnline = () => {
    if (source?.readyState === EventSource.CLOSED) {
      if (timer) window.clearTimeout(timer);
      attempt = 0;
      void open();
    }
  };
  window.addEventListener("online", onOnline);
  void open();

  return () => {
    stopped = true;
    window.removeEventListener("online", onOnline);
    if (timer) window.clearTimeout(timer);
    source?.close();
  };
}
