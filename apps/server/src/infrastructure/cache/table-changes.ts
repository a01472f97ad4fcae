import type { DatabaseHandle } from "../../db/database.ts";
import type { Watched, Written } from "../../db/write-watch.ts";
import type { MessageBus } from "../bus/bus.ts";

/** The keys (ids) of the rows that changed, or null when anything may have changed (every entry must go). */
export type Changed = ReadonlySet<string> | null;

// A signal names at most this many keys (a NOTIFY payload stays far under PostgreSQL's 8000 bytes); more are
// rare (one transaction for many rows) and forget everything instead.
const MAX_KEYS_PER_SIGNAL = 100;
const KEYS_PREFIX = "keys:";

/** What a commit changed, over the tables a cache watches: a table whose rows cannot be told means everything. */
function changedBy(written: Written): Changed {
  const keys = new Set<string>();
  for (const some of written.values()) {
    if (!some) return null;
    for (const key of some) keys.add(key);
  }
  return keys.size <= MAX_KEYS_PER_SIGNAL ? keys : null;
}

const signalOf = (changed: Changed) => (changed ? `${KEYS_PREFIX}${[...changed].join(",")}` : "*");

/** Any payload but a list of keys (including one from an older replica, which named people) forgets everything. */
const changedIn = (payload: string): Changed =>
  payload.startsWith(KEYS_PREFIX) ? new Set(payload.slice(KEYS_PREFIX.length).split(",").filter(Boolean)) : null;

/**
 * Calls `onChange` whenever one of `tables` may have changed, on every replica: here once a write is
 * committed (db/write-watch.ts), elsewhere through the bus on `channel` (confirmed: every replica has run
 * `onChange` before the write resolves), and for a gap in the bus's signals. It names the keys of the rows that
 * changed (per table, the values of its watched columns that the statement pins, write-watch.ts), else null:
 * forget everything. So a cache that
 * forgets on `onChange` is current for the very next request on any replica; while `bus.live` is false it must
 * read the database instead (it may be missing signals). Resolves once listening; the result stops it.
 */
export async function onTableChanges(
  deps: { database: Pick<DatabaseHandle, "writes">; bus: MessageBus },
  options: { channel: string; tables: Watched; onChange: (changed: Changed) => void },
): Promise<() => Promise<void>> {
  const unsubscribe = await deps.bus.subscribe(
    options.channel,
    (payload) => options.onChange(changedIn(payload)),
    () => options.onChange(null),
  );
  const unwatch = deps.database.writes.watch(options.tables, async (written) => {
    const changed = changedBy(written);
    // Rows of no one's (a null key): nothing to forget here or anywhere.
    if (changed?.size === 0) return;
    options.onChange(changed);
    await deps.bus.publish(options.channel, signalOf(changed), { confirm: true });
  });
  return async () => {
    unwatch();
    await unsubscribe();
  };
}
