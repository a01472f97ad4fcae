import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf, audit } from "../audit/audit.service.ts";
import { requireAdmin } from "../auth/guards.ts";

/**
 * The service-role key for server-to-server admin calls (README), for an admin who asks for it in the
 * console's settings. A POST, never cached, and each showing is in the audit log; an admin with a second factor
 * must have passed it in this session (a password alone does not show the key). Operators with shell
 * access print it with `npm run keys:service-role` instead.
 */
export async function serviceRoleKeyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    "/service-role-key",
    {
      config: { access: "admin" },
      schema: {
        tags: ["admin"],
        summary: "Show the service-role key (admins only, past their second factor when they have one; audited)",
        response: { 200: z.object({ serviceRoleKey: z.string() }), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      reply.header("cache-control", "no-store");
      await audit(app.deps.db, actorOf(auth), "keys.service_role_shown", { type: "keys" });
      return { serviceRoleKey: app.deps.auth.keys.serviceRoleKey };
    },
  );
}
