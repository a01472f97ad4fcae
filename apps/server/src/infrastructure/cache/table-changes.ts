import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../bus/bus.ts";

/**
 * Calls `onChange` whenever one of `tables` may have changed, on every replica: here once a write is
 * committed (db/write-watch.ts), elsewhere through the bus on `channel`, and for a gap in the bus's signals.
 * The writer's request is answered only after the signal is published, so a cache that forgets on `onChange`
 * is current for the very next request on any replica. Resolves once listening; the result stops it.
 */
export async function onTableChanges(
  deps: { database: DatabaseHandle; bus: MessageBus },
  options: { channel: string; tables: readonly string[]; onChange: () => void },
): Promise<() => Promise<void>> {
  const unsubscribe = await deps.bus.subscribe(options.channel, options.onChange, options.onChange);
  const unwatch = deps.database.writes.watch(options.tables, async (tables) => {
    options.onChange();
    await deps.bus.publish(options.channel, [...tables].join(","));
  });
  return async () => {
    unwatch();
    await unsubscribe();
  };
}
