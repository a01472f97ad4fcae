import { PUBLIC_BUCKETS, type PublicBucket } from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { sendObject } from "./object-response.ts";

/** Public files may change from the console (same key, new bytes); a short max-age plus ETag. */
export const PUBLIC_CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400";

const paramsSchema = z.object({ bucket: z.enum(PUBLIC_BUCKETS), "*": z.string() });

export async function storageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    method: ["GET", "HEAD"],
    url: "/object/public/:bucket/*",
    schema: { params: paramsSchema },
    handler: async (request, reply) =>
      sendObject(
        request,
        reply,
        app.deps.storage,
        request.params.bucket as PublicBucket,
        request.params["*"],
        PUBLIC_CACHE_CONTROL,
      ),
  });
}
