import { EventEmitter } from "node:events";
import { CHANNEL_NAME, type MessageBus } from "./bus.ts";

/** The default bus: one process, one EventEmitter. Delivery is asynchronous, like the real thing. */
export class InProcessBus implements MessageBus {
  readonly kind = "in-process" as const;
  readonly live = true;
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  async publish(channel: string, payload: string, options?: { confirm?: boolean }) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
    if (!options?.confirm) {
      setImmediate(() => this.#emitter.emit(channel, payload));
      return;
    }
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#emitter.emit(channel, payload);
        resolve();
      }),
    );
  }

  async subscribe(channel: string, listener: (payload: string) => void) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
    this.#emitter.on(channel, listener);
    return async () => {
      this.#emitter.off(channel, listener);
    };
  }

  async close() {
    this.#emitter.removeAllListeners();
  }
}
