import {
  errorBodySchema,
  playbackPositionBodySchema,
  playbackPositionSchema,
  watchStoryParamsSchema,
  watchStoryResultSchema,
} from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { requireUser } from "../auth/guards.ts";
import { savePlaybackPosition, watchStory } from "./progress.service.ts";

export async function progressRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    "/users/:id/watchStory/:storyId",
    {
      config: { access: "user" },
      schema: {
        tags: ["progress"],
        summary: "Record a story as watched (self only, `me` for the caller; idempotent; in order)",
        params: watchStoryParamsSchema,
        response: {
          200: watchStoryResultSchema,
          401: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
        },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      // "me" stands for the caller, for a client that has the token but not yet its user id.
      const userId = request.params.id === "me" ? auth.userId : request.params.id;
      return watchStory(app.deps, auth, userId, request.params.storyId);
    },
  );

  app.post(
    "/users/:id/position/:storyId",
    {
      config: { access: "user" },
      schema: {
        tags: ["progress"],
        summary: "Record where the person stopped in a story (self only, `me` for the caller), to resume there",
        params: watchStoryParamsSchema,
        body: playbackPositionBodySchema,
        response: {
          200: playbackPositionSchema,
          400: errorBodySchema,
          401: errorBodySchema,
          403: errorBodySchema,
          404: errorBodySchema,
        },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      const userId = request.params.id === "me" ? auth.userId : request.params.id;
      return savePlaybackPosition(app.deps, auth, userId, request.params.storyId, request.body.seconds);
    },
  );
}
