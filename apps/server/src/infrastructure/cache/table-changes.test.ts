import { describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../../db/database.ts";
import { WriteWatch } from "../../db/write-watch.ts";
import { InProcessBus } from "../bus/in-process-bus.ts";
import { type Changed, onTableChanges } from "./table-changes.ts";

/** What one replica's commits tell its own caches and, through the bus, every other replica's. */
describe("onTableChanges", () => {
  const plain = (changed: Changed) => (changed ? [...changed].sort() : "everything");

  it("names the people a commit declared, here and to other replicas; anything else means everything", async () => {
    const bus = new InProcessBus();
    const writes = new WriteWatch();
    const database = { writes } as unknown as DatabaseHandle;
    const here: unknown[] = [];
    const there: unknown[] = [];
    const stopHere = await onTableChanges(
      { database, bus },
      { channel: "t_changes", tables: ["progress"], onChange: (c) => here.push(plain(c)) },
    );
    // Another replica: its own write watch, the same bus.
    const elsewhere = { writes: new WriteWatch() } as unknown as DatabaseHandle;
    const stopThere = await onTableChanges(
      { database: elsewhere, bus },
      { channel: "t_changes", tables: ["progress"], onChange: (c) => there.push(plain(c)) },
    );
    await writes.notify(new Map([["progress", new Set(["rana", "sami"])]]));
    await writes.notify(new Map([["progress", null]]));
    const many = new Set(Array.from({ length: 101 }, (_, i) => `p${i}`));
    await writes.notify(new Map([["progress", many]]));
    // A replica of the version before named the tables it wrote.
    await bus.publish("t_changes", "progress,stories", { confirm: true });
    const people = ["rana", "sami"];
    expect(there).toEqual([people, "everything", "everything", "everything"]);
    // Here: at once, then again from the bus.
    expect(here).toEqual([people, people, "everything", "everything", "everything", "everything", "everything"]);
    await stopHere();
    await stopThere();
  });
});
