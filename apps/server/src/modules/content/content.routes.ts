import {
  contactSubmissionBodySchema,
  contactSubmissionResultSchema,
  contentsSchema,
  envelopeSchema,
  instructionBodySchema,
  instructionLocationSchema,
  instructionMediaSchema,
  mediaLanguageQuerySchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { envelopeErrorResponses, errorResponses } from "../../plugins/http-schemas.ts";
import { optionalUser, requireUser } from "../auth/guards.ts";
import { contents, instructionMedia, submitContact } from "./content.service.ts";

export const instructionSchema = z.object({ location: instructionLocationSchema, media: z.string().nullable() });

/** The caller's id when they sent a valid token; a stale token on a public form is not worth refusing it. */
async function userIdIfAny(request: FastifyRequest): Promise<string | null> {
  try {
    return (await optionalUser(request))?.userId ?? null;
  } catch {
    return null;
  }
}

/** Public content of the program: instruction videos by location, documents, the contact form. */
export async function contentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/instruction",
    {
      config: { access: "public" },
      schema: {
        tags: ["content"],
        summary: "The instruction video for a location",
        description: "`lang` picks the video's language (default English; the other language's when it has none).",
        querystring: mediaLanguageQuerySchema.extend({ location: instructionLocationSchema }),
        response: { 200: instructionSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { location, lang } = request.query;
      return { location, media: await instructionMedia(app.deps, location, lang) };
    },
  );

  app.post(
    "/instruction",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "The instruction video for a location",
        description: "`?lang=en|ar` picks the video's language (default English).",
        querystring: mediaLanguageQuerySchema,
        body: instructionBodySchema,
        response: { 200: envelopeSchema(instructionMediaSchema), ...envelopeErrorResponses(400, 401) },
      },
    },
    async (request) => {
      await requireUser(request);
      const media = await instructionMedia(app.deps, request.body.location, request.query.lang);
      return { code: 200 as const, data: { media } };
    },
  );

  app.get(
    "/get/contents",
    {
      config: { access: "public" },
      schema: {
        tags: ["content"],
        summary: "Terms and privacy documents (PDF URLs), the greeting audio and the landing video",
        description: "`lang` picks the language of each file where there are two (default English).",
        querystring: mediaLanguageQuerySchema,
        response: { 200: contentsSchema, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "public, max-age=60");
      return contents(app.deps, request.query.lang);
    },
  );

  app.post(
    "/contactSubmission",
    {
      config: { access: "public" },
      schema: {
        tags: ["content"],
        summary: "Send the Contact Us form (name and message required; an idempotencyKey stores a retried form once)",
        body: contactSubmissionBodySchema,
        response: { 201: contactSubmissionResultSchema, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const result = await submitContact(app.deps, { userId: await userIdIfAny(request), address: request.ip }, request.body);
      return reply.status(201).send(result);
    },
  );
}
