import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../bus/bus.ts";

/**
 * Calls `onChange` whenever one of `tables` may have changed, on every replica: here once a write is
 * committed (db/write-watch.ts), elsewhere through the bus on `channel` (confirmed: every replica has run
 * `onChange` before the write resolves), and for a gap in the bus's signals. So a cache that forgets on
 * `onChange` is current for the very next request on any replica; while `bus.live` is false it must read the
 * database instead (it may be missing signals). Resolves once listening; the result stops it.
 */
export async function onTableChanges(
  deps: { database: DatabaseHandle; bus: MessageBus },
  options: { channel: string; tables: readonly string[]; onChange: () => void },
): Promise<() => Promise<void>> {
  const unsubscribe = await deps.bus.subscribe(options.channel, options.onChange, options.onChange);
  const unwatch = deps.database.writes.watch(options.tables, async (tables) => {
    options.onChange();
    await deps.bus.publish(options.channel, [...tables].join(","), { confirm: true });
  });
  return async () => {
    unwatch();
    await unsubscribe();
  };
}
