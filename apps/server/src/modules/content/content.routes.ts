import { instructionLocationSchema } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { findInstruction } from "./content.repository.ts";

export const instructionSchema = z.object({ location: instructionLocationSchema, media: z.string().nullable() });

/** Public content of the program: instruction videos by location. */
export async function contentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/instruction",
    { schema: { querystring: z.object({ location: instructionLocationSchema }), response: { 200: instructionSchema } } },
    async (request) => {
      const row = await findInstruction(app.deps.db, request.query.location);
      return { location: request.query.location, media: row?.media_path ?? null };
    },
  );
}
