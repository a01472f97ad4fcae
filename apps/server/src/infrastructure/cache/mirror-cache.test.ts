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
});
