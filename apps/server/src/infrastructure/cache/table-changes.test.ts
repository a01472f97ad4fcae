import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../../db/database.ts";
import type { WriteListener } from "../../db/write-watch.ts";
import type { MessageBus } from "../bus/bus.ts";
import { InProcessBus } from "../bus/in-process-bus.ts";
import { type Changed, onTableChanges } from "./table-changes.ts";

/** A write watch that hands its listener over, to tell it commits by hand. */
function fakeWrites() {
  const listeners: WriteListener[] = [];
  const watch = (_: unknown, listener: WriteListener) => {
    listeners.push(listener);
    return () => {};
  };
  const database = { writes: { watch } };
  const commit = async (written: Map<string, Set<string> | null>) => {
    for (const l of listeners) await l(written);
  };
  return { database: database as unknown as Pick<DatabaseHandle, "writes">, commit };
}

/** What one replica's commits tell its own caches and, through the bus, every other replica's. */
describe("onTableChanges", () => {
  const plain = (changed: Changed) => (changed ? [...changed].sort() : "everything");

  it("names the keys a commit wrote, here and to other replicas; anything else means everything", async () => {
    const bus = new InProcessBus();
    const here: unknown[] = [];
    const there: unknown[] = [];
    const writes = fakeWrites();
    const stopHere = await onTableChanges(
      { database: writes.database, bus },
      { channel: "t_changes", tables: { progress: ["user_id"] }, onChange: (c) => here.push(plain(c)) },
    );
    // Another replica: its own write watch, the same bus.
    const stopThere = await onTableChanges(
      { database: fakeWrites().database, bus },
      { channel: "t_changes", tables: { progress: ["user_id"] }, onChange: (c) => there.push(plain(c)) },
    );
    await writes.commit(new Map([["progress", new Set(["rana", "sami"])]]));
    await writes.commit(new Map([["progress", null]]));
    const many = new Set(Array.from({ length: 101 }, (_, i) => `p${i}`));
    await writes.commit(new Map([["progress", many]]));
    // Rows of no one's: nothing to forget, nothing sent.
    await writes.commit(new Map([["progress", new Set<string>()]]));
    // A replica of the version before named people under another prefix.
    await bus.publish("t_changes", "user:rana", { confirm: true });
    const keys = ["rana", "sami"];
    expect(there).toEqual([keys, "everything", "everything", "everything"]);
    // Here: at once, then again from the bus.
    expect(here).toEqual([keys, keys, "everything", "everything", "everything", "everything", "everything"]);
    await stopHere();
    await stopThere();
  });

  it("forgets everything when the bus may have missed signals (a dropped LISTEN connection came back)", async () => {
    let gap = () => {};
    const bus: MessageBus = {
      kind: "postgres",
      live: true,
      publish: async () => {},
      subscribe: async (_channel, _listener, onGap) => {
        if (onGap) gap = onGap;
        return async () => {};
      },
      close: async () => {},
    };
    const seen: unknown[] = [];
    const stop = await onTableChanges(
      { database: fakeWrites().database, bus },
      { channel: "t_changes", tables: { progress: ["user_id"] }, onChange: (c) => seen.push(plain(c)) },
    );
    gap();
    expect(seen).toEqual(["everything"]);
    await stop();
  });
});
