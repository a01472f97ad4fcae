/**
 * How long signals with the same channel and payload are folded into one. PostgreSQL takes one lock for the whole
 * database at the commit of every transaction that notifies, so a NOTIFY per stored message made the busiest
 * channel a queue of its own; a signal only says "read again", so one per window says as much as a hundred.
 */
export const COALESCE_MS = 25;

interface Window {
  /** Another publish arrived inside the window: one more send is owed at its end (the trailing edge). */
  owed: boolean;
  /** Callers whose publish the trailing send will cover. */
  waiting: PromiseWithResolvers<void>[];
}

/**
 * Folds publishes of one (channel, payload) within `windowMs` into at most two sends: the first goes at once (a
 * quiet channel waits for nothing), and everything published during the window goes in one send at its end, which
 * opens the next window. So no signal is lost at a window's end, and a busy channel sends one signal per window.
 * Each publish resolves once a send that covers it has gone (or rejects with that send's error).
 */
export class SignalCoalescer {
  readonly #send: (channel: string, payload: string) => Promise<void>;
  readonly #windowMs: number;
  readonly #open = new Map<string, Window>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Sends saved by folding, since start: what /metrics reports as coalesced signals. */
  folded = 0;

  constructor(send: (channel: string, payload: string) => Promise<void>, windowMs = COALESCE_MS) {
    this.#send = send;
    this.#windowMs = windowMs;
  }

  publish(channel: string, payload: string): Promise<void> {
    if (this.#windowMs <= 0) return this.#send(channel, payload);
    const key = `${channel}\n${payload}`;
    const window = this.#open.get(key);
    if (window) {
      if (window.owed) this.folded++;
      window.owed = true;
      const waiter = Promise.withResolvers<void>();
      window.waiting.push(waiter);
      return waiter.promise;
    }
    this.#openWindow(key, channel, payload);
    return this.#send(channel, payload);
  }

  #openWindow(key: string, channel: string, payload: string) {
    const window: Window = { owed: false, waiting: [] };
    this.#open.set(key, window);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#open.delete(key);
      if (!window.owed) return;
      // The trailing send opens the next window, so a steady stream sends one signal per window.
      this.#openWindow(key, channel, payload);
      this.#send(channel, payload).then(
        () => {
          for (const w of window.waiting) w.resolve();
        },
        (error: unknown) => {
          for (const w of window.waiting) w.reject(error);
        },
      );
    }, this.#windowMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Sends what is owed now (closing the bus: nothing waits for a timer that will not fire). */
  async flush() {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const owed = [...this.#open.entries()].filter(([, w]) => w.owed);
    this.#open.clear();
    await Promise.all(
      owed.map(async ([key, window]) => {
        const cut = key.indexOf("\n");
        try {
          await this.#send(key.slice(0, cut), key.slice(cut + 1));
          for (const w of window.waiting) w.resolve();
        } catch (error) {
          for (const w of window.waiting) w.reject(error);
        }
      }),
    );
  }
}
