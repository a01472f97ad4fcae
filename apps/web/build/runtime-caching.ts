import type { RuntimeCaching } from "workbox-build";

/**
 * The service worker's caches for what the precache leaves out. Story videos and recordings stay on the network
 * (large, and ranged requests): only the small files an offline home screen needs are kept.
 * Workbox writes each urlPattern into the worker as its source text, so a pattern names no outside variable.
 */
export const runtimeCaching: RuntimeCaching[] = [
  {
    // A language's strings, once it has been used: immutable (hashed names), so the cache never goes stale.
    urlPattern: ({ url }) => url.pathname.startsWith("/assets/locale-"),
    handler: "CacheFirst",
    options: { cacheName: "hikaya-locales", expiration: { maxEntries: 64 } },
  },
  {
    // Public site settings (title, colour, maintenance) so the shell starts offline in the right look.
    urlPattern: ({ url }) => url.pathname === "/api/settings",
    handler: "NetworkFirst",
    options: { cacheName: "hikaya-settings", networkTimeoutSeconds: 3 },
  },
  {
    // Story thumbnails (storage's "thumbnails" bucket), so the home screen shows its cards offline rather than broken images. A replaced
    // thumbnail gets a new address (?v=), so the cached one can be served first; the expiration bounds the cache.
    // Only same-origin 200s are kept: a storage that redirects to another host gives opaque answers, which could
    // be errors, and those stay on the network.
    urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname.startsWith("/storage/v1/object/public/thumbnails/"),
    handler: "CacheFirst",
    options: {
      cacheName: "hikaya-thumbnails",
      expiration: { maxEntries: 100, maxAgeSeconds: 30 * 24 * 60 * 60 },
      cacheableResponse: { statuses: [200] },
    },
  },
];
