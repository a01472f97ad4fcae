import type { DatabaseHandle } from "../../db/database.ts";
import type { Written } from "../../db/write-watch.ts";
import type { MessageBus } from "../bus/bus.ts";

/** The people whose rows changed, or null when anything may have changed (every entry must go). */
export type Changed = ReadonlySet<string> | null;

// A signal names at most this many people (a NOTIFY payload stays far under PostgreSQL's 8000 bytes); more are
// rare (one transaction for many people) and forget everything instead.
const MAX_PEOPLE_PER_SIGNAL = 100;
const PEOPLE_PREFIX = "user:";

/** Who a commit changed, over the tables a cache watches: a table written without a person means everyone. */
function changedBy(written: Written): Changed {
  const people = new Set<string>();
  for (const who of written.values()) {
    if (!who) return null;
    for (const id of who) people.add(id);
  }
  return people.size <= MAX_PEOPLE_PER_SIGNAL ? people : null;
}

const signalOf = (changed: Changed) => (changed ? `${PEOPLE_PREFIX}${[...changed].join(",")}` : "*");

/** Any payload but a list of people (including one from an older replica, which named tables) forgets everything. */
const changedIn = (payload: string): Changed =>
  payload.startsWith(PEOPLE_PREFIX) ? new Set(payload.slice(PEOPLE_PREFIX.length).split(",").filter(Boolean)) : null;

/**
 * Calls `onChange` whenever one of `tables` may have changed, on every replica: here once a write is
 * committed (db/write-watch.ts), elsewhere through the bus on `channel` (confirmed: every replica has run
 * `onChange` before the write resolves), and for a gap in the bus's signals. It names the people whose rows
 * changed when every write declared its person (`writingFor`), else null: forget everything. So a cache that
 * forgets on `onChange` is current for the very next request on any replica; while `bus.live` is false it must
 * read the database instead (it may be missing signals). Resolves once listening; the result stops it.
 */
export async function onTableChanges(
  deps: { database: DatabaseHandle; bus: MessageBus },
  options: { channel: string; tables: readonly string[]; onChange: (changed: Changed) => void },
): Promise<() => Promise<void>> {
  const unsubscribe = await deps.bus.subscribe(
    options.channel,
    (payload) => options.onChange(changedIn(payload)),
    () => options.onChange(null),
  );
  const unwatch = deps.database.writes.watch(options.tables, async (written) => {
    const changed = changedBy(written);
    // Rows of nobody's (writingForNobody): nothing to forget here or anywhere.
    if (changed?.size === 0) return;
    options.onChange(changed);
    await deps.bus.publish(options.channel, signalOf(changed), { confirm: true });
  });
  return async () => {
    unwatch();
    await unsubscribe();
  };
}
