import type { Readable } from "node:stream";
import {
  adminMediaSchema,
  adminQuestionSchema,
  adminStorySchema,
  arabicMediaInputSchema,
  arabicStoryVideoInputSchema,
  instructionLocationSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { Actor } from "../audit/audit.service.ts";
import * as stories from "../stories/arabic-media.service.ts";
import * as instructions from "./arabic-media.service.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });

/**
 * The Arabic files beside the English ones (`…/ar`; admins only, see access.ts). The English files keep their
 * routes (story save, thumbnail, question, instruction); these set or, with null, remove the Arabic one.
 */
export function arabicMediaRoutes(
  app: FastifyInstance,
  actor: (request: FastifyRequest) => Actor,
  imageOf: (request: FastifyRequest) => Promise<Readable>,
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const story = { 200: adminStorySchema, ...errorResponses(400, 404) };
  r.put(
    "/stories/:id/video/ar",
    { schema: { tags: ["admin"], params: idParams, body: arabicStoryVideoInputSchema, response: story } },
    async (request) => stories.setStoryArabicVideo(app.deps, actor(request), request.params.id, request.body.videoUrl),
  );
  r.put(
    "/stories/:id/thumbnail/ar",
    { schema: { tags: ["admin"], params: idParams, response: { ...story, ...errorResponses(413, 415) } } },
    async (request, reply) => {
      try {
        return await stories.replaceArabicThumbnail(app.deps, actor(request), request.params.id, await imageOf(request));
      } catch (error) {
        // The rest of a refused body is not worth reading.
        reply.header("connection", "close");
        throw error;
      }
    },
  );
  r.delete("/stories/:id/thumbnail/ar", { schema: { tags: ["admin"], params: idParams, response: story } }, async (request) =>
    stories.removeArabicThumbnail(app.deps, actor(request), request.params.id),
  );
  r.put(
    "/questions/:id/media/ar",
    {
      schema: {
        tags: ["admin"],
        params: idParams,
        body: arabicMediaInputSchema,
        response: { 200: z.array(adminQuestionSchema), ...errorResponses(400, 404) },
      },
    },
    async (request) => stories.setQuestionArabicMedia(app.deps, actor(request), request.params.id, request.body.media),
  );
  r.put(
    "/instructions/:location/ar",
    {
      schema: {
        tags: ["admin"],
        params: z.object({ location: instructionLocationSchema }),
        body: arabicMediaInputSchema,
        response: { 200: adminMediaSchema, ...errorResponses(400) },
      },
    },
    async (request) =>
      instructions.setInstructionArabicMedia(app.deps, actor(request), request.params.location, request.body.media),
  );
}
