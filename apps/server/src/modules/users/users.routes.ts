import { userIdParamsSchema, userListQuerySchema, userListSchema, userSummarySchema } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { requireOperator, requireSelfOrOperator } from "../auth/guards.ts";
import { getUserSummary, listUserSummaries } from "./users.service.ts";

/** Reading people (spec section 7: GET /users, GET /users/{id}). Creating them is the auth module's. */
export async function usersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/users",
    {
      config: { access: "facilitator" },
      schema: {
        tags: ["users"],
        summary: "List users, newest first, searchable by name, e-mail or phone in any form (admins and facilitators)",
        querystring: userListQuerySchema,
        response: { 200: userListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      await requireOperator(request); // the console's people list: admins and facilitators
      reply.header("cache-control", "private, no-store");
      return listUserSummaries(app.deps, request.query);
    },
  );

  app.get(
    "/users/:id",
    {
      config: { access: { self: "id", or: "facilitator" } },
      schema: {
        tags: ["users"],
        summary: "One user (themself, or anyone for an admin or facilitator)",
        params: userIdParamsSchema,
        response: { 200: userSummarySchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await requireSelfOrOperator(request, request.params.id);
      reply.header("cache-control", "private, no-store");
      return getUserSummary(app.deps, request.params.id);
    },
  );
}
