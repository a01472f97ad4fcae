import { describe, expect, it } from "vitest";
import { runtimeCaching } from "./runtime-caching.ts";

type Match = (context: { url: URL; sameOrigin: boolean }) => boolean;

/**
 * The rule the service worker would use for an address, as Workbox matches it. Each pattern is rebuilt from its
 * source text, as generateSW writes it into the worker: one that named an outside variable would throw here.
 */
function ruleFor(address: string, origin = "https://hikaya.example") {
  const url = new URL(address, origin);
  const sameOrigin = url.origin === origin;
  return runtimeCaching.find((rule) => {
    const match = new Function(`return (${String(rule.urlPattern)})`)() as Match;
    return match({ url, sameOrigin });
  });
}

describe("the service worker's runtime caches", () => {
  it("keeps story thumbnails, served from the cache first and expiring", () => {
    const rule = ruleFor("/storage/v1/object/public/thumbnails/story-1.webp?v=3");
    expect(rule?.handler).toBe("CacheFirst");
    expect(rule?.options?.cacheName).toBe("hikaya-thumbnails");
    expect(rule?.options?.expiration?.maxEntries).toBeGreaterThan(0);
    expect(rule?.options?.expiration?.maxAgeSeconds).toBeGreaterThan(0);
    expect(rule?.options?.cacheableResponse?.statuses).toEqual([200]);
  });

  it("leaves videos, recordings and other hosts' images on the network", () => {
    expect(ruleFor("/storage/v1/object/public/videos/story-1.mp4")).toBeUndefined();
    expect(ruleFor("/storage/v1/object/public/recordings/r-1.webm")).toBeUndefined();
    expect(ruleFor("https://cdn.example.org/storage/v1/object/public/thumbnails/x.jpg")).toBeUndefined();
  });
});
