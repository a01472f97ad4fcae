import type { Bucket } from "@hikaya/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, notFound } from "../../errors.ts";
import { type FileStorage, safeObjectKey } from "../../infrastructure/files/index.ts";
import { parseRange } from "./http-range.ts";

/** A presigned address lives this long; the redirect to it is cached for less. */
const REDIRECT_SECONDS = 600;

/**
 * Answers a GET/HEAD for one stored object with Range (206/416), ETag and If-None-Match (304),
 * Content-Type and the given Cache-Control. Shared by public files and private recordings.
 */
export async function sendObject(
  request: FastifyRequest,
  reply: FastifyReply,
  storage: FileStorage,
  bucket: Bucket,
  rawKey: string,
  cacheControl: string,
) {
  const key = safeObjectKey(rawKey);
  if (!key) throw new AppError("bad_request", "Invalid object path");
  // STORAGE_DELIVERY=redirect: the browser fetches from S3 or the CDN itself (Range and ETag are theirs).
  const direct = await storage.urlFor?.(bucket, key, REDIRECT_SECONDS);
  if (direct) {
    reply.header("cache-control", "private, max-age=60");
    return reply.redirect(direct, 302);
  }
  // What the object is comes from memory (no stat per request), small objects whole; large ones are streamed.
  const held = await storage.held?.(bucket, key);
  const info = held === undefined ? await storage.stat(bucket, key) : (held?.info ?? null);
  if (!info) throw notFound("Object not found");

  reply.header("etag", info.etag);
  reply.header("last-modified", held?.lastModified ?? info.lastModified.toUTCString());
  reply.header("cache-control", cacheControl);
  reply.header("accept-ranges", "bytes");
  reply.header("x-content-type-options", "nosniff");
  reply.type(info.contentType);

  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch?.split(",").some((t) => t.trim() === info.etag || t.trim() === "*")) {
    return reply.status(304).send();
  }
  const ifRange = request.headers["if-range"];
  const rangeHeader = ifRange && ifRange !== info.etag ? undefined : request.headers.range;
  const range = parseRange(rangeHeader, info.size);
  if (range === "unsatisfiable") {
    reply.header("content-range", `bytes */${info.size}`);
    throw new AppError("range_not_satisfiable", "Requested range not satisfiable");
  }
  if (range) {
    reply.status(206);
    reply.header("content-range", `bytes ${range.start}-${range.end}/${info.size}`);
    reply.header("content-length", range.end - range.start + 1);
  } else {
    reply.header("content-length", info.size);
  }
  if (request.method === "HEAD") return reply.send();
  const bytes = held?.bytes;
  if (bytes) return reply.send(range ? bytes.subarray(range.start, range.end + 1) : bytes);
  return reply.send(await storage.read(bucket, key, range));
}
