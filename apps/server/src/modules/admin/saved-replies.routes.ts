import { savedReplyInputSchema, savedReplySchema } from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { Actor } from "../audit/audit.service.ts";
import * as replies from "./saved-replies.service.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });

/** The team's saved replies: every operator reads them, admins write them (access.ts). */
export function savedRepliesRoutes(app: FastifyInstance, actor: (request: FastifyRequest) => Actor) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.deps;
  r.get(
    "/replies",
    { schema: { tags: ["admin"], summary: "The saved replies, by title", response: { 200: z.array(savedReplySchema) } } },
    async () => replies.listSavedReplies(db),
  );
  r.post(
    "/replies",
    {
      schema: {
        tags: ["admin"],
        summary: "Save a reply in English and Arabic (admins)",
        body: savedReplyInputSchema,
        response: { 200: savedReplySchema, ...errorResponses(400) },
      },
    },
    async (request) => replies.createSavedReply(db, actor(request), request.body),
  );
  r.put(
    "/replies/:id",
    {
      schema: {
        tags: ["admin"],
        summary: "Change a saved reply (admins)",
        params: idParams,
        body: savedReplyInputSchema,
        response: { 200: savedReplySchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => replies.updateSavedReply(db, actor(request), request.params.id, request.body),
  );
  r.delete(
    "/replies/:id",
    {
      schema: {
        tags: ["admin"],
        summary: "Delete a saved reply (admins)",
        params: idParams,
        response: { 200: z.object({ ok: z.literal(true) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      await replies.deleteSavedReply(db, actor(request), request.params.id);
      return { ok: true as const };
    },
  );
}
