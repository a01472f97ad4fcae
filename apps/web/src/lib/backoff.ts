/**
 * Exponential backoff: `base`, 2×, 4×… capped at `max`. The one place the web app decides how long to
 * wait before trying again (session refresh, live chat reconnects, the offline message outbox).
 */
export function backoffDelay(attempt: number, base: number, max = Number.POSITIVE_INFINITY): number {
  return Math.min(base * 2 ** Math.max(0, attempt), max);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
