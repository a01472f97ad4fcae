import {
  captionsInputSchema,
  captionsTargetSchema,
  MEDIA_FAILURES,
  mediaStatusAnswerSchema,
  mediaStatusQuerySchema,
  mediaStreamQuerySchema,
  mediaStreamSchema,
  STORY_MEDIA_BUCKET,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { FileStorage } from "../../infrastructure/files/index.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf } from "../audit/audit.service.ts";
import { requireOperator } from "../auth/guards.ts";
import { ownerKeyOf } from "../storage/derived-files.ts";
import { grantStream } from "../storage/media-cookie-header.ts";
import { cookieOpens } from "../storage/media-cookies.ts";
import { sendObject } from "../storage/object-response.ts";
import { isValidLink } from "../storage/signed-links.ts";
import { mediaLinkSubject, objectOf } from "../storage/story-media.ts";
import { removeCaptions, saveCaptions } from "./captions.ts";
import { linkSignature, NO_STREAM, statesOf, streamOf } from "./media.service.ts";

/** Same as a signed story video: only this person's browser keeps it, for about as long as the link lives. */
const SIGNED_CACHE_CONTROL = "private, max-age=600";

const streamParamsSchema = z.object({
  bucket: z.enum([STORY_MEDIA_BUCKET]),
  expires: z.coerce.number().int().positive(),
  signature: z.string().max(200),
  "*": z.string().max(600),
});

/**
 * A playlist names its renditions and segments by relative address, which a browser resolves against the
 * playlist's own; a redirect to S3 (STORAGE_DELIVERY=redirect) would move that base off this route. Playlists are
 * therefore always answered from here; segments may still redirect.
 */
function withoutRedirect(storage: FileStorage): FileStorage {
  return new Proxy(storage, {
    get(target, property) {
      if (property === "urlFor") return undefined;
      const value: unknown = Reflect.get(target, property, target);
      // The store keeps #private fields: its methods must run on the store itself, not on the proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const badLink = () => new AppError("forbidden", "This link has expired or is not valid");

/**
 * What GET /api/media/stream answers for a video address: its stream and captions, and for a story's private video
 * the cookie that opens them. One whose signature is missing, wrong or expired is refused (403), as its file would
 * be; an outside address has no stream.
 */
async function streamFor(request: FastifyRequest, reply: FastifyReply, src: string) {
  const deps = request.server.deps;
  const object = objectOf(src);
  if (!object) return NO_STREAM;
  if (object.bucket === STORY_MEDIA_BUCKET) {
    const signature = linkSignature(src);
    if (!signature || !isValidLink(deps, mediaLinkSubject(object.key), Number(signature.expires), signature.signature))
      throw badLink();
    grantStream(request, reply, object.key);
  }
  return streamOf(deps, src, true);
}

/** The captions editor's answer after a save: the stream as the video's address gives it, or none. */
const streamAfterEdit = (request: FastifyRequest, reply: FastifyReply, src: string) =>
  streamFor(request, reply, src).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "forbidden") return NO_STREAM;
    throw error;
  });

/** Playlists and captions may be rewritten in place (a reprocessed video, captions saved without a new address). */
const STREAM_INDEX_CACHE_CONTROL = "public, max-age=300";
/** Segments and posters are written once under a name no other file takes: any cache may keep them. */
const STREAM_FILE_CACHE_CONTROL = "public, max-age=31536000, immutable";

const cookieParamsSchema = z.object({ bucket: z.enum([STORY_MEDIA_BUCKET]), "*": z.string().max(600) });

export async function mediaRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // A story's HLS files, under one address for every viewer, opened by the cookie handed out with the stream
  // (storage/media-cookies.ts). Outside the cache key: a CDN keeps one copy for everyone and checks the cookie at its
  // edge, or sends it here (docs/scale.md). Refusals are never stored, by the browser or any cache.
  app.route({
    method: ["GET", "HEAD"],
    url: "/storage/v1/object/cookie/:bucket/*",
    schema: { params: cookieParamsSchema },
    handler: async (request, reply) => {
      const key = request.params["*"];
      const owner = ownerKeyOf(key);
      if (!owner || !cookieOpens(app.deps, owner, request.headers.cookie)) {
        reply.header("cache-control", "no-store");
        throw badLink();
      }
      const index = key.endsWith(".m3u8") || key.endsWith(".vtt");
      // Captions too: a <track> fetched from another origin (S3) would need CORS and a crossorigin attribute.
      const storage = index ? withoutRedirect(app.deps.storage) : app.deps.storage;
      const cacheControl = index ? STREAM_INDEX_CACHE_CONTROL : STREAM_FILE_CACHE_CONTROL;
      return sendObject(request, reply, storage, STORY_MEDIA_BUCKET, key, cacheControl);
    },
  });

  // The stream's addresses before issue 41, under the signature of its video's link: links already handed out keep
  // working until they expire (an hour), and a locked story's video link is never handed out, so neither are these.
  app.route({
    method: ["GET", "HEAD"],
    url: "/storage/v1/object/stream/:bucket/:expires/:signature/*",
    schema: { params: streamParamsSchema },
    handler: async (request, reply) => {
      const { expires, signature } = request.params;
      const key = request.params["*"];
      const owner = ownerKeyOf(key);
      if (!owner || !isValidLink(app.deps, mediaLinkSubject(owner), expires, signature)) throw badLink();
      // Captions too: a <track> fetched from another origin (S3) would need CORS and a crossorigin attribute.
      const storage = key.endsWith(".m3u8") || key.endsWith(".vtt") ? withoutRedirect(app.deps.storage) : app.deps.storage;
      return sendObject(request, reply, storage, STORY_MEDIA_BUCKET, key, SIGNED_CACHE_CONTROL);
    },
  });

  app.get(
    "/api/media/stream",
    {
      config: { access: "public" },
      schema: {
        tags: ["media"],
        summary: "The HLS version of a video the caller was given (its signed link or public address), once processed",
        querystring: mediaStreamQuerySchema,
        response: { 200: mediaStreamSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      // The answer changes once, when processing finishes; a player asks again on its next visit.
      reply.header("cache-control", "private, max-age=30");
      return streamFor(request, reply, request.query.src);
    },
  );

  app.post(
    "/api/admin/media/status",
    {
      schema: {
        tags: ["admin"],
        summary: `Processing state of stored files (failure codes: ${MEDIA_FAILURES.join(", ")})`,
        body: mediaStatusQuerySchema,
        response: { 200: mediaStatusAnswerSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ states: await statesOf(app.deps, request.body.paths) }),
  );

  // Captions per language (captions.ts), given as text: the console reads an uploaded .vtt itself.
  app.put(
    "/api/admin/media/captions",
    {
      schema: {
        tags: ["admin"],
        summary: "Save a stored video's WebVTT captions in one language (must start with WEBVTT; 256 KB at most)",
        body: captionsInputSchema,
        response: { 200: mediaStreamSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    // Answers what GET /api/media/stream now says for the address, so the editor shows the saved file at once.
    async (request, reply) => {
      await saveCaptions(app.deps, actorOf(await requireOperator(request)), request.body);
      return streamAfterEdit(request, reply, request.body.src);
    },
  );

  app.delete(
    "/api/admin/media/captions",
    {
      schema: {
        tags: ["admin"],
        summary: "Remove a stored video's captions in one language",
        body: captionsTargetSchema,
        response: { 200: mediaStreamSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      await removeCaptions(app.deps, actorOf(await requireOperator(request)), request.body);
      return streamAfterEdit(request, reply, request.body.src);
    },
  );
}
