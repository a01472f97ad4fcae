import { analyticsBatchSchema, analyticsResultSchema } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../errors.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { accessTokenOf } from "../auth/guards.ts";
import { recordEvents, userOfToken } from "./analytics.service.ts";

const EVENTS_BODY_LIMIT = 64 * 1024;

/** POST /events: product analytics from the web app (spec section 7), also as a sendBeacon text/plain body. */
export async function analyticsRoutes(fastify: FastifyInstance) {
  // sendBeacon may only send "simple" types without a preflight; its JSON then arrives as text/plain.
  fastify.removeContentTypeParser("text/plain");
  fastify.addContentTypeParser("text/plain", { parseAs: "string", bodyLimit: EVENTS_BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(new AppError("bad_request", "Body is not valid JSON"), undefined);
    }
  });
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/events",
    {
      config: { access: "public" },
      bodyLimit: EVENTS_BODY_LIMIT,
      schema: {
        tags: ["analytics"],
        summary: "Record a batch of analytics events (signup, landing_video_end, video_watched)",
        description: "JSON or text/plain JSON (sendBeacon). A valid token (header or body) attributes the events to its user.",
        consumes: ["application/json", "text/plain"],
        body: analyticsBatchSchema,
        response: { 202: analyticsResultSchema, ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => {
      const userId = await userOfToken(app.deps, accessTokenOf(request) ?? request.body.token);
      const accepted = await recordEvents(app.deps, userId, request.body);
      return reply.status(202).send({ accepted });
    },
  );
}
