import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Cache } from "../../infrastructure/cache/cache.ts";

/** Files of the web build up to this size (the HTML, most chunks, icons, the manifest) are answered from memory. */
export const SMALL_WEB_FILE_BYTES = 64 * 1024;
// A sixteenth of CACHE_MAX_BYTES (4 MB at the default: a build's small files); the shares are listed in config.ts.
export const WEB_FILES_SHARE = 0.0625;
/** A held file is checked against the disk (one stat) at most this often: a new build shows within this time. */
export const WEB_REVALIDATE_MS = 10_000;
const PLAIN_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** A path inside the build made of plain segments: no dot segments, no dotfiles, no backslashes or escapes. */
export const isPlainPath = (file: string) => PLAIN_PATH.test(file);

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  webmanifest: "application/manifest+json; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  xml: "application/xml; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  webp: "image/webp",
  jpg: "image/jpeg",
  woff2: "font/woff2",
};

interface WebFile {
  mtimeMs: number;
  size: number;
  etag: string;
  lastModified: string;
  contentType: string;
  /** The file as it is, and the build's pre-compressed copies beside it when they exist. */
  bodies: { identity: Buffer; br?: Buffer; gzip?: Buffer };
  checkedAt: number;
}

/**
 * The web build's small files from memory, each with the build's .br/.gz copies, validators and headers as
 * @fastify/static gives them, so the HTML of every screen costs no stat, open and stream per request. Anything
 * else (a large file, a Range request, an unknown type) is left to @fastify/static.
 *
 * Kept because @fastify/static alone misses issue 15's goal for a screen's HTML: `npm run bench -- speed`, the
 * `/login HTML` row (the prerendered page), measured with @fastify/static and its precompressed files answering
 * instead: 4.8× bare node:http's CPU per request (goal ≤ 2×) and 48 % of its req/s (goal ≥ 50 %); with this,
 * 1.5× to 1.7× and 54 % to 90 % (November 2026, a shared 2-core machine; the commit that added this note has the rows).
 */
export class WebFiles {
  readonly #root: string;
  readonly #entries: Cache<WebFile | { large: true; checkedAt: number }>;
  readonly #now: () => number;

  constructor(root: string, maxBytes: number, now: () => number = () => Date.now()) {
    this.#root = root;
    const sizeOf = (held: WebFile | { large: true; checkedAt: number }) =>
      "large" in held ? 0 : held.bodies.identity.length + (held.bodies.br?.length ?? 0) + (held.bodies.gzip?.length ?? 0);
    this.#entries = new Cache({ maxBytes, sizeOf });
    this.#now = now;
  }

  get bytes(): number {
    return this.#entries.bytes;
  }

  /** Sends `file` (a path inside the build) when it can be answered from memory; false leaves it to the caller. */
  async send(request: FastifyRequest, reply: FastifyReply, file: string, cacheControl: string): Promise<boolean> {
    if (request.headers.range) return false;
    const entry = await this.#load(file);
    if (!entry) return false;
    reply.header("cache-control", cacheControl);
    reply.header("accept-ranges", "bytes");
    reply.header("last-modified", entry.lastModified);
    reply.header("etag", entry.etag);
    reply.header("content-type", entry.contentType);
    const { br, gzip, identity } = entry.bodies;
    if (br || gzip) {
      const vary = reply.getHeader("vary");
      reply.header("vary", vary ? `${String(vary)}, accept-encoding` : "accept-encoding");
    }
    const ifNoneMatch = request.headers["if-none-match"];
    if (ifNoneMatch?.split(",").some((t) => t.trim() === entry.etag || t.trim() === "*")) {
      reply.code(304).send();
      return true;
    }
    const accepted = String(request.headers["accept-encoding"] ?? "");
    const [body, encoding] =
      br && /\bbr\b/.test(accepted) ? [br, "br"] : gzip && /\bgzip\b/.test(accepted) ? [gzip, "gzip"] : [identity, null];
    if (encoding) reply.header("content-encoding", encoding);
    reply.header("content-length", body.length);
    reply.send(request.method === "HEAD" ? undefined : body);
    return true;
  }

  /** A small file's text from memory (a prerendered screen the server fills in), or null when it is not one. */
  async text(file: string): Promise<string | null> {
    const entry = await this.#load(file);
    return entry ? entry.bodies.identity.toString("utf8") : null;
  }

  async #load(file: string): Promise<WebFile | null> {
    const held = this.#entries.get(file);
    const now = this.#now();
    if (held && now - held.checkedAt < WEB_REVALIDATE_MS) return "large" in held ? null : held;
    const contentType = TYPES[file.split(".").pop()?.toLowerCase() ?? ""];
    if (!contentType || !isPlainPath(file)) return null;
    const path = join(this.#root, file);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    if (held && !("large" in held) && held.mtimeMs === info.mtimeMs && held.size === info.size) {
      held.checkedAt = now;
      return held;
    }
    if (info.size > SMALL_WEB_FILE_BYTES) {
      this.#entries.set(file, { large: true, checkedAt: now });
      return null;
    }
    const [identity, br, gzip] = await Promise.all([
      readFile(path),
      readFile(`${path}.br`).catch(() => undefined),
      readFile(`${path}.gz`).catch(() => undefined),
    ]);
    // A file being written (a build under a running server) reads shorter or longer than it stated: held, a chunk
    // cut short would be answered for WEB_REVALIDATE_MS, and a browser keeps an immutable asset for a year.
    if (identity.length !== info.size) return null;
    const entry: WebFile = {
      mtimeMs: info.mtimeMs,
      size: info.size,
      // The same weak validator @fastify/send makes, so a browser's cached copy stays valid across the change.
      etag: `W/"${info.size.toString(16)}-${info.mtime.getTime().toString(16)}"`,
      lastModified: info.mtime.toUTCString(),
      contentType,
      bodies: { identity, ...(br ? { br } : {}), ...(gzip ? { gzip } : {}) },
      checkedAt: now,
    };
    this.#entries.set(file, entry);
    return entry;
  }
}
