import { publicSettingsSchema } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { getPublicSettings } from "./settings.service.ts";

export async function settingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/settings",
    { config: { access: "public" }, schema: { response: { 200: publicSettingsSchema } } },
    async (_request, reply) => {
      // Settings change from the console; browsers revalidate rather than keep a stale copy.
      reply.header("cache-control", "no-cache");
      return getPublicSettings(app.deps);
    },
  );
}
