/**
 * Fan-out between server processes. Payloads are small strings (ids), never the data itself:
 * receivers load what they need from the database, so a missed or doubled signal costs a query,
 * never a wrong answer. In-process for SQLite (one process owns the file); LISTEN/NOTIFY when
 * several replicas share a PostgreSQL database.
 */
export interface MessageBus {
  readonly kind: "in-process" | "postgres";
  /**
   * False while this process may be missing signals (its LISTEN connection is down): a cache that relies on
   * the bus to hear about changes must read the database meanwhile.
   */
  readonly live: boolean;
  /**
   * Sends `payload` to every subscriber of `channel` in every process. With `confirm`, resolves only once every
   * live process has handed it to its subscribers (each acknowledges), so a change published this way has taken
   * effect everywhere before the request that made it is answered; a process that does not acknowledge within
   * `CONFIRM_TIMEOUT_MS` is given up on (it has crashed or lost its connection, and then it forgets its caches).
   */
  publish(channel: string, payload: string, options?: { confirm?: boolean }): Promise<void>;
  /**
   * Calls `listener` for each payload published on `channel` by any process, and `onGap` when
   * signals may have been lost (a dropped LISTEN connection came back). Resolves once listening.
   */
  subscribe(channel: string, listener: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const CONFIRM_TIMEOUT_MS = 2000;

/** Channel names are SQL identifiers on PostgreSQL: keep them to this shape. */
export const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
