import { describe, expect, it } from "vitest";
import { ByteLru } from "./byte-lru.ts";

describe("ByteLru", () => {
  it("stays within its bytes, evicting the least recently used first", () => {
    const lru = new ByteLru<string, number>(1000);
    for (let i = 0; i < 100; i++) {
      lru.set(`k${i}`, i, 90);
      expect(lru.bytes).toBeLessThanOrEqual(1000);
    }
    expect(lru.size).toBe(11);
    expect(lru.get("k88")).toBeUndefined();
    expect(lru.get("k89")).toBe(89);
    // k89 was just used: the next entry evicts k90, not k89.
    lru.set("new", 0, 90);
    expect(lru.get("k89")).toBe(89);
    expect(lru.get("k90")).toBeUndefined();
  });

  it("replaces an entry's bytes, refuses one larger than the whole budget, and holds nothing at 0", () => {
    const lru = new ByteLru<string, string>(100);
    lru.set("a", "x", 60);
    lru.set("a", "y", 30);
    expect(lru.bytes).toBe(30);
    lru.set("huge", "z", 101);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.get("a")).toBe("y");
    const off = new ByteLru<string, string>(0);
    off.set("a", "x", 1);
    expect(off.size).toBe(0);
  });
});
