import { teamInviteSchema, teamMemberSchema, teamRoleInputSchema } from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Actor } from "../audit/audit.service.ts";
import { metaOf } from "./request-meta.ts";
import * as team from "./team.service.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });

/** The console's team page: operators, their invitations, roles and removal (admins only, see access.ts). */
export function teamRoutes(app: FastifyInstance, actor: (request: FastifyRequest) => Actor) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get("/team", { schema: { tags: ["admin"], response: { 200: z.array(teamMemberSchema) } } }, async () =>
    team.listTeam(app.deps),
  );
  r.post("/team", { schema: { tags: ["admin"], body: teamInviteSchema, response: { 200: teamMemberSchema } } }, async (request) =>
    team.inviteOperator(app.deps, actor(request), request.body, metaOf(request)),
  );
  r.put(
    "/team/:id",
    { schema: { tags: ["admin"], params: idParams, body: teamRoleInputSchema, response: { 200: teamMemberSchema } } },
    async (request) => team.changeRole(app.deps, actor(request), request.params.id, request.body.role, metaOf(request)),
  );
  r.delete(
    "/team/:id",
    { schema: { tags: ["admin"], params: idParams, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (request) => {
      await team.removeOperator(app.deps, actor(request), request.params.id, metaOf(request));
      return { ok: true as const };
    },
  );
}
