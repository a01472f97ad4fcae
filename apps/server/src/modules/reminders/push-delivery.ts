import type { EndpointPolicy } from "./push-endpoint.ts";

export interface PushOptions extends EndpointPolicy {
  /** A certificate authority to trust besides the system's (tests: their local push service's certificate). */
  ca?: string | Buffer;
}

/**
 * The process's pushes that run after their request answered: where they may connect (production: public https push
 * services only; a test adds its local push service, never through configuration) and which are still running, so
 * shutdown and tests can wait for them. A push's failure is logged by whoever started it, never thrown here.
 */
export class PushDelivery {
  readonly options: PushOptions;
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: PushOptions = {}) {
    this.options = options;
  }

  /** Starts `task` now without waiting for it. */
  run(task: () => Promise<unknown>): void {
    const running: Promise<unknown> = task()
      .catch(() => undefined)
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Settles once nothing runs, including what started while waiting. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
