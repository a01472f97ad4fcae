import type { Story } from "@hikaya/contracts";
import {
  answerItemSchema,
  createStoryBodySchema,
  deletedSchema,
  envelopeSchema,
  landingAnswerSchema,
  mediaLanguageQuerySchema,
  questionItemSchema,
  reorderStoriesBodySchema,
  storyIdParamsSchema,
  storyIdQuerySchema,
  storyInputFromCreateBody,
  storyListSchema,
  storyPatchFromUpdateBody,
  storyRefBodySchema,
  storySchema,
  updateStoryBodySchema,
} from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { badRequest } from "../../errors.ts";
import { envelopeErrorResponses, errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf } from "../audit/audit.service.ts";
import { optionalUser, requireAdmin, requireUser } from "../auth/guards.ts";
import { grantStreamOfLink } from "../storage/media-cookie-header.ts";
import * as stories from "../stories/stories.service.ts";
import {
  answersFor,
  getStoryAsAdmin,
  getStoryFor,
  landingAnswers,
  listStoriesAsAdmin,
  questionsFor,
  storyListJson,
} from "./program.service.ts";

const VISIBILITY =
  "Visitors get titles, subtitles, thumbnails and orders only. With an access token each story carries the caller's " +
  "`watchStatus` (spec section 4) and its video `url`, except stories Locked for the caller, whose url is left out.";

/** The story program: public API (stories) and token API (questions, answers). */
export async function programRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/stories",
    {
      config: { access: "optional" },
      schema: {
        tags: ["stories"],
        summary: "List the stories in order",
        description: `${VISIBILITY} \`lang\` picks the language of the videos and thumbnails (default English).`,
        querystring: mediaLanguageQuerySchema,
        response: { 200: storyListSchema, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const auth = await optionalUser(request);
      // The list differs per person (and between a visitor and the same browser once signed in).
      reply.header("cache-control", "private, no-cache");
      reply.header("vary", "authorization, x-auth-token");
      // Already JSON bytes (cached per viewer kind and progress, built from the same Story type): Fastify
      // sends a Buffer as it is, skipping the per-request schema serializer.
      const json = await storyListJson(app.deps, auth, request.query.lang);
      return reply.type("application/json; charset=utf-8").send(json as unknown as Story[]);
    },
  );

  app.get(
    "/stories/:id",
    {
      config: { access: "optional" },
      schema: {
        tags: ["stories"],
        summary: "One story",
        description: `${VISIBILITY} A story Locked for the caller answers 403 story_locked.`,
        params: storyIdParamsSchema,
        querystring: mediaLanguageQuerySchema,
        response: { 200: storySchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const auth = await optionalUser(request);
      reply.header("cache-control", "private, no-cache");
      reply.header("vary", "authorization, x-auth-token");
      const story = await getStoryFor(app.deps, auth, request.params.id, request.query.lang);
      // The stream in the answer is at the same address for everyone; this viewer's cookie opens it (issue 41).
      if (story.stream) grantStreamOfLink(request, reply, story.url);
      return story;
    },
  );

  app.post(
    "/stories",
    {
      config: { access: "admin" },
      schema: {
        tags: ["stories"],
        summary: "Create a story (admins)",
        description:
          "Without `order` the story goes last; with it, the stories from that order on move down one. " +
          "`published: false` saves a draft, which families do not see and which sits after every published story.",
        body: createStoryBodySchema,
        response: { 201: storySchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      // The story service writes (one validation, order, audit, progress resync for both APIs).
      const auth = await requireAdmin(request);
      const id = await stories.createStory(app.deps, actorOf(auth), storyInputFromCreateBody(request.body));
      return reply.status(201).send(await getStoryAsAdmin(app.deps, id));
    },
  );

  app.put(
    "/stories",
    {
      config: { access: "admin" },
      schema: {
        tags: ["stories"],
        summary: "Update a story (admins)",
        description: "A new `order` moves the story there and shifts the ones between; orders stay 1…n.",
        querystring: storyIdQuerySchema,
        body: updateStoryBodySchema,
        response: { 200: storySchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const auth = await requireAdmin(request);
      if (request.body.id !== undefined && request.body.id !== request.query.id)
        throw badRequest("The id in the body does not match the query id");
      const { id } = request.query;
      return stories.updateStory(app.deps, actorOf(auth), id, storyPatchFromUpdateBody(request.body), (db) =>
        getStoryAsAdmin({ ...app.deps, db }, id),
      );
    },
  );

  app.delete(
    "/stories",
    {
      config: { access: "admin" },
      schema: {
        tags: ["stories"],
        summary: "Delete a story (admins)",
        description: "Its questions and answers go with it; the orders after it close the gap.",
        querystring: storyIdQuerySchema,
        response: { 200: deletedSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const auth = await requireAdmin(request);
      await stories.deleteStory(app.deps, actorOf(auth), request.query.id);
      return { id: request.query.id, deleted: true as const };
    },
  );

  app.post(
    "/stories/reorder",
    {
      config: { access: "admin" },
      schema: {
        tags: ["stories"],
        summary: "Set the order of every story at once (admins)",
        description: "`ids` lists every story exactly once; they get orders 1…n in one transaction.",
        body: reorderStoriesBodySchema,
        response: { 200: storyListSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request) => {
      const auth = await requireAdmin(request);
      await stories.reorderStories(app.deps, actorOf(auth), { ids: request.body.ids });
      return listStoriesAsAdmin(app.deps);
    },
  );

  app.get(
    "/landing/answers",
    {
      config: { access: "public" },
      schema: {
        tags: ["content"],
        summary: "Family members' answers played on the landing and character screens",
        response: { 200: z.array(landingAnswerSchema) },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "public, max-age=60");
      return landingAnswers(app.deps);
    },
  );

  app.post(
    "/story/questions",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "A story's questions, in order",
        description: "`?lang=en|ar` picks the language of the question videos (default English).",
        querystring: mediaLanguageQuerySchema,
        body: storyRefBodySchema,
        response: { 200: envelopeSchema(z.array(questionItemSchema)), ...envelopeErrorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      return { code: 200 as const, data: await questionsFor(app.deps, auth, request.body.story, request.query.lang) };
    },
  );

  app.post(
    "/story/questions/answers",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "The family members' recorded answers to a story's questions",
        body: storyRefBodySchema,
        response: { 200: envelopeSchema(z.array(answerItemSchema)), ...envelopeErrorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      return { code: 200 as const, data: await answersFor(app.deps, auth, request.body.story) };
    },
  );
}
