/**
 * Fan-out between server processes. Payloads are small strings (ids), never the data itself:
 * receivers load what they need from the database, so a missed or doubled signal costs a query,
 * never a wrong answer. In-process for SQLite (one process owns the file); LISTEN/NOTIFY when
 * several replicas share a PostgreSQL database.
 */
export interface MessageBus {
  readonly kind: "in-process" | "postgres";
  publish(channel: string, payload: string): Promise<void>;
  /**
   * Calls `listener` for each payload published on `channel` by any process, and `onGap` when
   * signals may have been lost (a dropped LISTEN connection came back). Resolves once listening.
   */
  subscribe(channel: string, listener: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Channel names are SQL identifiers on PostgreSQL: keep them to this shape. */
export const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
