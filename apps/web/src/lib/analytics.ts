/**
 * Product analytics (spec section 7: signup, landing video end, video watched) sent to Hikaya's own
 * /api/events, never to a third party. Events are batched and flushed with sendBeacon when the page
 * is hidden, so none is lost when a person closes the tab.
 */
import { getAccessToken } from "./session.ts";

export type AnalyticsEventName = "signup" | "landing_video_end" | "video_watched";

interface QueuedEvent {
  name: AnalyticsEventName;
  properties: Record<string, string | number | boolean | null>;
  at: string;
}

const FLUSH_AFTER_MS = 5000;
const MAX_BATCH = 20;
let queue: QueuedEvent[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

export function track(name: AnalyticsEventName, properties: QueuedEvent["properties"] = {}) {
  queue.push({ name, properties, at: new Date().toISOString() });
  if (queue.length >= MAX_BATCH) flush();
  else timer ??= setTimeout(flush, FLUSH_AFTER_MS);
}

export function flush(useBeacon = false) {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (queue.length === 0) return;
  const body = JSON.stringify({ events: queue, token: getAccessToken() ?? undefined });
  queue = [];
  if (useBeacon && navigator.sendBeacon?.("/api/events", new Blob([body], { type: "application/json" }))) return;
  // Unloads go through sendBeacon above; a plain fetch is enough while the page lives.
  void fetch("/api/events", { method: "POST", headers: { "content-type": "application/json" }, body }).catch(() => undefined);
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush(true);
  });
  window.addEventListener("pagehide", () => flush(true));
}
