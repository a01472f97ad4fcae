/**
 * One chat conversation in the browser, shared by the family's /chats and the facilitators' inbox:
 * the newest page first and older pages on demand, live messages merged in by id (each once), and an
 * outbox. A message being sent shows as pending; a network failure keeps it queued (text survives a
 * reload in localStorage) and it is sent again when the connection returns; a refused one stays with a
 * retry control. Each outbox item carries a client-made id the server stores with a unique constraint,
 * so however often it is retried, it is stored once.
 */
import type { ChatMessage } from "@hikaya/contracts";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "./api-client.ts";
import { backoffDelay, sleep } from "./backoff.ts";
import { connectLiveMessages, type LiveOptions, type LiveStatus } from "./live-messages.ts";

export interface OutboxItem {
  clientId: string;
  messageType: "text" | "audio";
  text?: string;
  blob?: Blob;
  durationSeconds?: number;
  createdAt: string;
  status: "sending" | "queued" | "failed";
}

export interface ConversationSource {
  /** Names the outbox in localStorage; one per conversation and signed-in person. */
  outboxKey: string;
  loadPage(before?: string): Promise<{ messages: ChatMessage[]; hasMore: boolean }>;
  send(item: OutboxItem): Promise<ChatMessage>;
  livePath: string;
  liveParams?: Record<string, string>;
  /** A fresh access token for each live (re)connection (the user app's or the console's session). */
  liveToken(): Promise<string | null>;
  /** Keeps only this conversation's messages from a stream that carries several. */
  belongs?(message: ChatMessage): boolean;
  onLiveMessage?(message: ChatMessage): void;
  /**
   * Follows the conversation live in place of a stream of its own (the console shares one stream between its pages
   * and tabs); `connectLiveMessages` with `livePath` when absent.
   */
  connect?(options: LiveOptions): () => void;
}

const STORAGE_PREFIX = "hikaya.outbox.";

function loadOutbox(key: string): OutboxItem[] {
  try {
    const raw = localStorage.getItem(STORAGE_PREFIX + key);
    const items = raw ? (JSON.parse(raw) as OutboxItem[]) : [];
    return items.filter((i) => i.messageType === "text").map((i) => ({ ...i, status: "queued" as const }));
  } catch {
    return [];
  }
}

function saveOutbox(key: string, items: OutboxItem[]) {
  const texts = items.filter((i) => i.messageType === "text").map(({ blob: _blob, ...rest }) => rest);
  if (texts.length) localStorage.setItem(STORAGE_PREFIX + key, JSON.stringify(texts));
  else localStorage.removeItem(STORAGE_PREFIX + key);
}

export function newClientId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function isRetryable(error: unknown): boolean {
  return error instanceof ApiError && (error.code === "network" || error.status >= 500 || error.status === 0);
}

export function useConversation(source: ConversationSource | null) {
  const [messages, setMessages] = useState<Map<string, ChatMessage>>(new Map());
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const [outbox, setOutbox] = useState<OutboxItem[]>([]);
  const sourceRef = useRef(source);
  sourceRef.current = source;
  const inFlight = useRef(new Set<string>());
  const outboxRef = useRef(outbox);
  outboxRef.current = outbox;

  const merge = useCallback((incoming: ChatMessage[]) => {
    if (incoming.length === 0) return;
    setMessages((prev) => {
      const next = new Map(prev);
      for (const m of incoming) next.set(m._id, m);
      return next;
    });
    const confirmed = new Set(incoming.map((m) => m.clientId).filter(Boolean));
    if (confirmed.size) setOutbox((prev) => prev.filter((i) => !confirmed.has(i.clientId)));
  }, []);

  const updateOutbox = useCallback((fn: (items: OutboxItem[]) => OutboxItem[]) => {
    setOutbox((prev) => {
      const next = fn(prev);
      if (sourceRef.current) saveOutbox(sourceRef.current.outboxKey, next);
      return next;
    });
  }, []);

  const deliver = useCallback(
    async (item: OutboxItem) => {
      const src = sourceRef.current;
      if (!src || inFlight.current.has(item.clientId)) return;
      if (!navigator.onLine) {
        updateOutbox((items) => items.map((i) => (i.clientId === item.clientId ? { ...i, status: "queued" } : i)));
        return;
      }
      inFlight.current.add(item.clientId);
      updateOutbox((items) => items.map((i) => (i.clientId === item.clientId ? { ...i, status: "sending" } : i)));
      try {
        const message = await src.send(item);
        merge([message]);
        updateOutbox((items) => items.filter((i) => i.clientId !== item.clientId));
      } catch (error) {
        const status = isRetryable(error) ? "queued" : "failed";
        updateOutbox((items) => items.map((i) => (i.clientId === item.clientId ? { ...i, status } : i)));
        if (status === "failed") throw error;
      } finally {
        inFlight.current.delete(item.clientId);
      }
    },
    [merge, updateOutbox],
  );

  /** Sends everything waiting for the connection, oldest first, one at a time. */
  const flush = useCallback(async () => {
    for (const item of outboxRef.current.filter((i) => i.status === "queued")) {
      try {
        await deliver(item);
      } catch {
        // stays failed with its retry control
      }
      if (!navigator.onLine) break;
    }
  }, [deliver]);

  const key = source?.outboxKey;
  // Load the newest page, then follow the live stream from the newest id we have.
  useEffect(() => {
    const src = sourceRef.current;
    if (!src || !key) return;
    let cancelled = false;
    let close: (() => void) | null = null;
    setMessages(new Map());
    setLoading(true);
    setLoadError(null);
    setOutbox(loadOutbox(key));
    void (async () => {
      let newest = "0";
      for (let attempt = 0; !cancelled; attempt++) {
        try {
          const page = await src.loadPage();
          if (cancelled) return;
          merge(page.messages);
          setHasMore(page.hasMore);
          newest = page.messages.at(-1)?._id ?? "0";
          setLoading(false);
          break;
        } catch (error) {
          if (!isRetryable(error) || attempt > 30) {
            setLoadError(error);
            setLoading(false);
            return;
          }
          await sleep(backoffDelay(attempt, 500, 5000));
        }
      }
      if (cancelled) return;
      close = (src.connect ?? connectLiveMessages)({
        path: src.livePath,
        params: src.liveParams,
        token: src.liveToken,
        after: newest,
        onMessage: (m) => {
          if (src.belongs && !src.belongs(m)) return;
          merge([m]);
          src.onLiveMessage?.(m);
        },
        onStatus: setStatus,
        onReady: () => void flush(),
      });
      void flush();
    })();
    return () => {
      cancelled = true;
      close?.();
    };
  }, [key, merge, flush]);

  useEffect(() => {
    const online = () => void flush();
    window.addEventListener("online", online);
    return () => window.removeEventListener("online", online);
  }, [flush]);

  const sorted = useMemo(() => [...messages.values()].sort((a, b) => Number(a._id) - Number(b._id)), [messages]);
  const pending = useMemo(() => {
    const known = new Set(sorted.map((m) => m.clientId).filter(Boolean));
    return outbox.filter((i) => !known.has(i.clientId));
  }, [outbox, sorted]);

  const loadOlder = useCallback(async () => {
    const src = sourceRef.current;
    const oldest = sorted[0]?._id;
    if (!src || !oldest || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const page = await src.loadPage(oldest);
      merge(page.messages);
      setHasMore(page.hasMore);
    } finally {
      setLoadingOlder(false);
    }
  }, [sorted, loadingOlder, merge]);

  const send = useCallback(
    (draft: Pick<OutboxItem, "messageType" | "text" | "blob" | "durationSeconds">) => {
      const item: OutboxItem = { ...draft, clientId: newClientId(), createdAt: new Date().toISOString(), status: "sending" };
      updateOutbox((items) => [...items, item]);
      return deliver(item);
    },
    [deliver, updateOutbox],
  );

  const retry = useCallback(
    (clientId: string) => {
      const item = outboxRef.current.find((i) => i.clientId === clientId);
      return item ? deliver(item) : Promise.resolve();
    },
    [deliver],
  );

  return { messages: sorted, pending, hasMore, loading, loadError, loadingOlder, loadOlder, status, send, retry };
}
