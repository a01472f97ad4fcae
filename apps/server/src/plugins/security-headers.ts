import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import helmet from "helmet";
import type { Config } from "../config.ts";
import { startVideoOrigins, type VideoOriginsReader } from "../modules/settings/video-origins.ts";

/** Video hosts a story may embed (features/stories/embed.ts, the console's media preview). */
const EMBED_ORIGINS = ["https://www.youtube-nocookie.com", "https://player.vimeo.com"];

/**
 * Where the browser fetches media from besides this origin: with STORAGE_DELIVERY=redirect, files answer 302 to the
 * CDN (STORAGE_PUBLIC_URL) or to a presigned S3 address, and images, audio, video and documents load from there.
 */
export function mediaOrigins(storage: Config["storage"]): string[] {
  if (storage.driver !== "s3" || storage.delivery !== "redirect") return [];
  const origins = new Set<string>();
  if (storage.publicUrl) origins.add(new URL(storage.publicUrl).origin);
  if (storage.endpoint) {
    const endpoint = new URL(storage.endpoint);
    origins.add(endpoint.origin);
    if (!storage.forcePathStyle) origins.add(`${endpoint.protocol}//${storage.bucket}.${endpoint.host}`);
  } else {
    origins.add(`https://${storage.bucket}.s3.${storage.region}.amazonaws.com`);
    origins.add(`https://s3.${storage.region}.amazonaws.com`);
  }
  return [...origins];
}

/**
 * Security headers on every answer. Access tokens live in browser storage, so the CSP is the main defence against
 * injected script: scripts only from this origin (the build has no inline script), no framing of the app or the
 * console, no plugins. Styles allow inline attributes, which React's style props need; they cannot run script.
 * HSTS only when PUBLIC_URL is https, so a plain-HTTP local run is never pinned to TLS.
 *
 * Story videos and thumbnails may also come from the origins the operator lists in the settings (`videoOrigins`, a
 * CDN): those join img-src, media-src and connect-src (HLS playlists are fetched). The list is read through
 * `VideoOriginsReader`, dropped on every replica by any settings save, so the header follows a change at once.
 *
 * helmet's other headers are the same for every request, so they are computed once at start-up and each request only
 * copies the header lines (helmet's middleware chain per request was about 9 % of a visitor's GET /api/stories in a
 * CPU profile); the CSP string is kept per origin list. They go on the raw response, so a route that writes its own
 * head (a live stream) keeps them too.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  config: Pick<Config, "publicUrl" | "storage" | "cacheMaxBytes">,
) {
  const https = config.publicUrl?.startsWith("https://") ?? false;
  const media = mediaOrigins(config.storage);
  const reader = await startVideoOrigins(app.deps);
  app.addHook("onClose", () => reader.stop());
  const csp = contentSecurityPolicy(media, https);
  const applyHeaders = helmet({
    contentSecurityPolicy: false,
    frameguard: { action: "deny" },
    // Embedded players need to know which site embeds them; other sites learn only the origin.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // Media and files are read by this origin only; a cross-origin API client (supabase-js) uses CORS, unaffected.
    crossOriginResourcePolicy: { policy: "same-origin" },
  });
  const headers = await headersOf(applyHeaders);
  app.addHook("onRequest", (request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    const listed = reader.held();
    if (listed) {
      raw.setHeader("content-security-policy", csp(listed));
      return done();
    }
    listedOrigins(reader, request).then((origins) => {
      raw.setHeader("content-security-policy", csp(origins));
      done();
    }, done);
  });
}

/** The listed origins; none (the stricter policy) if the database cannot be read, which the request will meet too. */
function listedOrigins(reader: VideoOriginsReader, request: FastifyRequest): Promise<readonly string[]> {
  return reader.read().catch((error: unknown) => {
    request.log.warn({ err: error }, "video origins unreadable: CSP without them");
    return [];
  });
}

/** The CSP for a list of listed video origins, as helmet writes it; the last list's string is kept. */
function contentSecurityPolicy(media: readonly string[], https: boolean): (listed: readonly string[]) => string {
  let last: { listed: readonly string[]; header: string } | undefined;
  return (listed) => {
    if (last?.listed === listed) return last.header;
    const outside = [...new Set([...media, ...listed])];
    const directives: [string, readonly string[]][] = [
      ["default-src", ["'self'"]],
      ["script-src", ["'self'"]],
      ["script-src-attr", ["'none'"]],
      ["style-src", ["'self'", "'unsafe-inline'"]],
      ["img-src", ["'self'", "data:", "blob:", ...outside]],
      ["media-src", ["'self'", "blob:", "data:", ...outside]],
      ["font-src", ["'self'", "data:"]],
      ["connect-src", ["'self'", ...outside]],
      ["worker-src", ["'self'", "blob:"]],
      ["manifest-src", ["'self'"]],
      ["frame-src", EMBED_ORIGINS],
      ["object-src", ["'none'"]],
      ["base-uri", ["'self'"]],
      ["form-action", ["'self'"]],
      ["frame-ancestors", ["'none'"]],
      ...(https ? [["upgrade-insecure-requests", []] as [string, readonly string[]]] : []),
    ];
    const header = directives.map(([name, values]) => [name, ...values].join(" ")).join(";");
    last = { listed, header };
    return header;
  };
}

/** The headers a helmet middleware sets, read once from a stand-in request and response. */
async function headersOf(middleware: ReturnType<typeof helmet>): Promise<[string, string][]> {
  const set = new Map<string, string>();
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => void set.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => void set.delete(name.toLowerCase()),
  };
  await new Promise<void>((resolve, reject) =>
    middleware({} as IncomingMessage, res as unknown as ServerResponse, (error?: unknown) => (error ? reject(error) : resolve())),
  );
  return [...set];
}
