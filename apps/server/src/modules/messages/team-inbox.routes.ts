import {
  assigneeInputSchema,
  conversationAssignmentSchema,
  conversationNoteSchema,
  noteInputSchema,
  operatorSchema,
} from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf } from "../audit/audit.service.ts";
import { requireOperator } from "../auth/guards.ts";
import type { TeamInboxService } from "./team-inbox.service.ts";

const userParams = z.object({ userId: z.string().min(1).max(100) });

/** Operators' routes beside a conversation: private notes, hand-over, and the colleagues one can hand it to. */
export function teamInboxRoutes(fastify: FastifyInstance, service: TeamInboxService) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/admin/conversations/:userId/notes",
    {
      schema: {
        tags: ["messages"],
        summary: "Operators: a conversation's private notes, oldest first (never in the family's API)",
        params: userParams,
        response: { 200: z.array(conversationNoteSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await requireOperator(request);
      reply.header("cache-control", "private, no-store");
      return service.notes(request.params.userId);
    },
  );
  app.post(
    "/admin/conversations/:userId/notes",
    {
      schema: {
        tags: ["messages"],
        summary: "Operators: add a private note to a conversation (every open console hears it live)",
        params: userParams,
        body: noteInputSchema,
        response: { 200: conversationNoteSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const auth = await requireOperator(request);
      return service.addNote(request.params.userId, auth, request.body.text);
    },
  );
  app.put(
    "/admin/conversations/:userId/assignee",
    {
      schema: {
        tags: ["messages"],
        summary: "Hand a conversation to an operator, or to nobody (admins, or its owner; audited, told live)",
        params: userParams,
        body: assigneeInputSchema,
        response: { 200: conversationAssignmentSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const auth = await requireOperator(request);
      return service.handOver(request.params.userId, auth, actorOf(auth), request.body.operatorId);
    },
  );
  app.get(
    "/admin/operators",
    {
      schema: {
        tags: ["messages"],
        summary: "Operators: the team, to hand a conversation to",
        response: { 200: z.array(operatorSchema) },
      },
    },
    async (request, reply) => {
      await requireOperator(request);
      reply.header("cache-control", "private, no-store");
      return service.operators();
    },
  );
}
