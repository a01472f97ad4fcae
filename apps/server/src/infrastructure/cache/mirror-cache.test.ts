import { describe, expect, it } from "vitest";
import { MirrorCache } from "./mirror-cache.ts";

describe("MirrorCache", () => {
  it("reads once while nothing changed, again after a change, and every time while the bus is not live", async () => {
    let live = true;
    let reads = 0;
    const cache = new MirrorCache<number>(
      10_000,
      () => 8,
      () => live,
    );
    const load = async () => ++reads;
    expect([await cache.get("a", load), await cache.get("a", load)]).toEqual([1, 1]);
    cache.clear();
    expect(await cache.get("a", load)).toBe(2);
    live = false;
    expect([await cache.get("a", load), await cache.get("a", load)]).toEqual([3, 4]);
  });

  it("does not keep a value read before a change it overlapped", async () => {
    const cache = new MirrorCache<string>(10_000, (v) => v.length);
    let release: (v: string) => void = () => undefined;
    const slow = cache.get("a", () => new Promise<string>((ok) => (release = ok)));
    cache.clear();
    release("old");
    expect(await slow).toBe("old");
    expect(await cache.get("a", async () => "new")).toBe("new");
  });

  it("forgets only the keys of the people a change names, and does not keep their reads in flight", async () => {
    const cache = new MirrorCache<string>(
      10_000,
      (v) => v.length,
      () => true,
      (id) => [`e:${id}`, `p:${id}`],
    );
    for (const key of ["e:rana", "p:rana", "e:sami"]) await cache.get(key, async () => "old");
    const releases: ((v: string) => void)[] = [];
    const slow = (key: string) => cache.get(key, () => new Promise<string>((ok) => releases.push(ok)));
    const inFlight = [slow("p:huda"), slow("p:lina")];
    cache.forgetChanged(new Set(["rana", "huda"]));
    for (const release of releases) release("read before");
    await Promise.all(inFlight);
    const read = (key: string) => cache.get(key, async () => "new");
    const keys = ["e:rana", "p:rana", "e:sami", "p:huda", "p:lina"];
    const seen = [];
    for (const key of keys) seen.push(await read(key));
    expect(seen).toEqual(["new", "new", "old", "new", "read before"]);
    cache.forgetChanged(null);
    expect(await read("e:sami")).toBe("new");
  });
});
