import { personBlockSchema } from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { Actor } from "../audit/audit.service.ts";
import * as people from "./people.service.ts";
import { metaOf } from "./request-meta.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });
const ok = z.object({ ok: z.literal(true) });

/** Admins' actions on one person from the people pages (access.ts): block, delete, send a reset code. All audited. */
export function peopleActionRoutes(app: FastifyInstance, actor: (request: FastifyRequest) => Actor) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.put(
    "/users/:id/block",
    {
      schema: {
        tags: ["admin"],
        summary: "Block (every session ends, sign-in refused) or unblock a person",
        params: idParams,
        body: personBlockSchema,
        response: { 200: ok, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      await people.setBlocked(app.deps, actor(request), request.params.id, request.body.blocked, metaOf(request));
      return { ok: true as const };
    },
  );
  r.delete(
    "/users/:id",
    {
      schema: {
        tags: ["admin"],
        summary: "Delete a person's account with everything it holds, files included",
        params: idParams,
        response: { 200: ok, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      await people.deletePerson(app.deps, actor(request), request.params.id, metaOf(request));
      return { ok: true as const };
    },
  );
  r.post(
    "/users/:id/reset-code",
    {
      schema: {
        tags: ["admin"],
        summary: "Send the person a password-reset code by SMS (their own reset flow)",
        params: idParams,
        response: { 200: ok, ...errorResponses(400, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      await people.sendResetCode(app.deps, actor(request), request.params.id, metaOf(request));
      return { ok: true as const };
    },
  );
}
