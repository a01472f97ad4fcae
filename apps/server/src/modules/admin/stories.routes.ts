import type { Readable } from "node:stream";
import {
  adminQuestionSchema,
  adminStoryListQuerySchema,
  adminStorySchema,
  answerInputSchema,
  publishInputSchema,
  questionInputSchema,
  reorderImpactInputSchema,
  reorderImpactSchema,
  reorderSchema,
  storyInputSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { Actor } from "../audit/audit.service.ts";
import * as questions from "../stories/questions.service.ts";
import * as stories from "../stories/stories.service.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });

/**
 * The console's stories, questions and answers (admins only, see access.ts). The writes are the story service's,
 * the same the spec's `/api/stories` uses; this file only speaks the console's shapes.
 */
export function storiesAdminRoutes(
  app: FastifyInstance,
  actor: (request: FastifyRequest) => Actor,
  imageOf: (request: FastifyRequest) => Promise<Readable>,
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    "/stories",
    {
      schema: {
        tags: ["admin"],
        summary: "Stories in order (drafts after the published ones); `q` searches titles, `limit`/`offset` page",
        description: "The number of matching stories is in the `x-total-count` header.",
        querystring: adminStoryListQuerySchema,
        response: { 200: z.array(adminStorySchema), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const page = await stories.listStories(app.deps, request.query);
      reply.header("x-total-count", String(page.total));
      return page.stories;
    },
  );
  r.post(
    "/stories",
    { schema: { tags: ["admin"], body: storyInputSchema, response: { 200: adminStorySchema, ...errorResponses(400, 409) } } },
    async (request) => stories.getStory(app.deps, await stories.createStory(app.deps, actor(request), request.body)),
  );
  r.get(
    "/stories/:id",
    { schema: { tags: ["admin"], params: idParams, response: { 200: adminStorySchema, ...errorResponses(404) } } },
    async (request) => stories.getStory(app.deps, request.params.id),
  );
  r.put(
    "/stories/:id",
    {
      schema: {
        tags: ["admin"],
        params: idParams,
        body: storyInputSchema,
        response: { 200: adminStorySchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return stories.updateStory(app.deps, actor(request), id, request.body, (db) => stories.getStory({ ...app.deps, db }, id));
    },
  );
  r.put(
    "/stories/:id/published",
    {
      schema: {
        tags: ["admin"],
        summary: "Publish a draft (it becomes the last published story) or take a story nobody watched back to draft",
        params: idParams,
        body: publishInputSchema,
        response: { 200: adminStorySchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => stories.setPublished(app.deps, actor(request), request.params.id, request.body.published),
  );
  r.delete(
    "/stories/:id",
    {
      schema: {
        tags: ["admin"],
        params: idParams,
        response: {
          200: z.object({ id: z.string(), watchedBy: z.number(), recordingsKept: z.number() }),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => stories.deleteStory(app.deps, actor(request), request.params.id),
  );
  r.post(
    "/stories/reorder",
    {
      schema: { tags: ["admin"], body: reorderSchema, response: { 200: z.array(adminStorySchema), ...errorResponses(400, 409) } },
    },
    async (request) => {
      await stories.reorderStories(app.deps, actor(request), request.body);
      return (await stories.listStories(app.deps)).stories;
    },
  );
  r.post(
    "/stories/reorder/impact",
    {
      schema: {
        tags: ["admin"],
        summary: "Dry run of a reorder: how many people would see a story they never watched marked as watched",
        body: reorderImpactInputSchema,
        response: { 200: reorderImpactSchema, ...errorResponses(400) },
      },
    },
    async (request) => stories.reorderImpact(app.deps, request.body.ids),
  );
  r.put(
    "/stories/:id/thumbnail",
    { schema: { tags: ["admin"], params: idParams, response: { 200: adminStorySchema, ...errorResponses(400, 404, 413, 415) } } },
    async (request, reply) => {
      try {
        return await stories.replaceThumbnail(app.deps, actor(request), request.params.id, await imageOf(request));
      } catch (error) {
        reply.header("connection", "close");
        throw error;
      }
    },
  );

  const questionList = { 200: z.array(adminQuestionSchema), ...errorResponses(400, 404, 409) };
  r.get("/stories/:id/questions", { schema: { tags: ["admin"], params: idParams, response: questionList } }, async (request) =>
    questions.listQuestions(app.deps, request.params.id),
  );
  r.post(
    "/stories/:id/questions",
    { schema: { tags: ["admin"], params: idParams, body: questionInputSchema, response: questionList } },
    async (request) => questions.addQuestion(app.deps, actor(request), request.params.id, request.body.media),
  );
  r.post(
    "/stories/:id/questions/reorder",
    { schema: { tags: ["admin"], params: idParams, body: reorderSchema, response: questionList } },
    async (request) => questions.reorderQuestions(app.deps, actor(request), request.params.id, request.body),
  );
  r.put(
    "/questions/:id",
    { schema: { tags: ["admin"], params: idParams, body: questionInputSchema, response: questionList } },
    async (request) => questions.updateQuestion(app.deps, actor(request), request.params.id, request.body),
  );
  r.delete("/questions/:id", { schema: { tags: ["admin"], params: idParams, response: questionList } }, async (request) =>
    questions.deleteQuestion(app.deps, actor(request), request.params.id),
  );
  r.post(
    "/questions/:id/answers",
    { schema: { tags: ["admin"], params: idParams, body: answerInputSchema, response: questionList } },
    async (request) => questions.addAnswer(app.deps, actor(request), request.params.id, request.body),
  );
  r.post(
    "/questions/:id/answers/reorder",
    { schema: { tags: ["admin"], params: idParams, body: reorderSchema, response: questionList } },
    async (request) => questions.reorderAnswers(app.deps, actor(request), request.params.id, request.body),
  );
  r.put(
    "/answers/:id",
    { schema: { tags: ["admin"], params: idParams, body: answerInputSchema, response: questionList } },
    async (request) => questions.updateAnswer(app.deps, actor(request), request.params.id, request.body),
  );
  r.delete("/answers/:id", { schema: { tags: ["admin"], params: idParams, response: questionList } }, async (request) =>
    questions.deleteAnswer(app.deps, actor(request), request.params.id),
  );
}
