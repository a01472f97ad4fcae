import type { Config } from "../../config.ts";
import type { MessageBus } from "./bus.ts";
import { InProcessBus } from "./in-process-bus.ts";
import { PostgresBus } from "./postgres-bus.ts";

export * from "./bus.ts";

/** In-process with SQLite (one process); LISTEN/NOTIFY when replicas share a PostgreSQL database. */
export function createMessageBus(database: Config["database"]): MessageBus {
  return database.kind === "postgres" ? new PostgresBus(database.url) : new InProcessBus();
}
