import { PUBLIC_BUCKETS, type PublicBucket, recordingAudioQuerySchema, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { sendObject } from "./object-response.ts";
import { isValidLink } from "./signed-links.ts";
import { mediaLinkSubject } from "./story-media.ts";

/** Public files may change from the console (same key, new bytes); a short max-age plus ETag. */
export const PUBLIC_CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400";
/** A signed link names one version of one file for a while; only the person's own browser keeps it. */
const SIGNED_CACHE_CONTROL = "private, max-age=600";

const paramsSchema = z.object({ bucket: z.enum(PUBLIC_BUCKETS), "*": z.string() });
const signedParamsSchema = z.object({ bucket: z.enum([STORY_MEDIA_BUCKET]), "*": z.string() });

export async function storageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    method: ["GET", "HEAD"],
    url: "/object/public/:bucket/*",
    schema: { params: paramsSchema },
    handler: async (request, reply) =>
      sendObject(
        request,
        reply,
        app.deps.storage,
        request.params.bucket as PublicBucket,
        request.params["*"],
        PUBLIC_CACHE_CONTROL,
      ),
  });

  // A story's private media, by the signed link the API gave someone the story is open to (story-media.ts).
  app.route({
    method: ["GET", "HEAD"],
    url: "/object/sign/:bucket/*",
    schema: { params: signedParamsSchema, querystring: recordingAudioQuerySchema },
    handler: async (request, reply) => {
      const key = request.params["*"];
      const { expires, signature } = request.query;
      if (!isValidLink(app.deps, mediaLinkSubject(key), expires, signature))
        throw new AppError("forbidden", "This link has expired or is not valid");
      return sendObject(request, reply, app.deps.storage, STORY_MEDIA_BUCKET, key, SIGNED_CACHE_CONTROL);
    },
  });
}
