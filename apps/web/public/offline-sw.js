/* Stories downloaded for offline (issue 38), imported into the generated service worker (vite.config.ts importScripts).
   The app stores each downloaded file in the "hikaya-offline" cache under a stable address, /offline/<story>/…, because
   the signed links it came from expire; this answers those addresses from the cache, with byte ranges for <video> and
   <audio>, and never goes to the network for them. The app writes and removes the files itself
   (apps/web/src/features/stories/offline/offline-copy.ts). */
const OFFLINE_CACHE = "hikaya-offline";

/** The bytes a "Range: bytes=a-b" header asks of `size`, or null when it asks for none that exist. */
function byteRange(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  let start;
  let end;
  if (match[1] === "") {
    // "bytes=-n": the last n bytes.
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start <= end && start < size ? { start, end } : null;
}

async function answerOffline(request) {
  const cache = await caches.open(OFFLINE_CACHE);
  const url = new URL(request.url);
  const stored = await cache.match(url.origin + url.pathname);
  if (!stored) return new Response("Not downloaded", { status: 404, headers: { "content-type": "text/plain" } });
  const range = request.headers.get("range");
  if (!range) return stored;
  const body = await stored.blob();
  const wanted = byteRange(range, body.size);
  const type = stored.headers.get("content-type") || "application/octet-stream";
  if (!wanted) return new Response(null, { status: 416, headers: { "content-range": `bytes */${body.size}` } });
  return new Response(body.slice(wanted.start, wanted.end + 1), {
    status: 206,
    headers: {
      "content-type": type,
      "content-length": String(wanted.end - wanted.start + 1),
      "content-range": `bytes ${wanted.start}-${wanted.end}/${body.size}`,
      "accept-ranges": "bytes",
    },
  });
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith("/offline/")) return;
  event.respondWith(answerOffline(request));
});
