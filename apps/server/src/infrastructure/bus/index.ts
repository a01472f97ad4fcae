import type { Config } from "../../config.ts";
import type { MessageBus } from "./bus.ts";
import { InProcessBus } from "./in-process-bus.ts";

export * from "./bus.ts";

/** In-process with SQLite (one process); LISTEN/NOTIFY when replicas share a PostgreSQL database. */
export async function createMessageBus(database: Config["database"], options: { coalesceMs?: number } = {}): Promise<MessageBus> {
  if (database.kind !== "postgres") return new InProcessBus();
  // The PostgreSQL driver loads only when the database is PostgreSQL.
  const { PostgresBus } = await import("./postgres-bus.ts");
  return new PostgresBus(database.url, database.listenUrl, options.coalesceMs);
}
