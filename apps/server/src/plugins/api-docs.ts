import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/** Only the HTTP API is documented; the web app's catch-all and static files are not. */
const DOCUMENTED = /^\/(api|auth\/v1|storage\/v1)(\/|$)/;

/** A tag for routes that declare none, from their path, so the reference page groups them. */
function defaultTag(url: string): string {
  if (url.startsWith("/auth/v1")) return "auth";
  if (url.startsWith("/api/admin")) return "admin";
  if (url.startsWith("/api/message")) return "messages";
  if (url.startsWith("/storage/v1")) return "storage";
  return "other";
}

/**
 * GET /api/docs: an OpenAPI document generated from the routes' zod schemas, with a readable reference
 * page. Registered on the root instance before any route, so @fastify/swagger sees every one.
 */
export async function registerApiDocs(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Hikaya API",
        version: "1.0.0",
        description:
          "The public API (JSON; errors `{ code, message }`) and the token API (POST with the access token in " +
          "`Authorization: Bearer` or `x-auth-token`; answers and errors in the envelope `{ code, data }`).",
      },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          xAuthToken: { type: "apiKey", in: "header", name: "x-auth-token" },
        },
      },
      security: [{ bearer: [] }, { xAuthToken: [] }, {}],
      tags: [
        { name: "stories", description: "The story program, in order; per-person watch status (spec sections 3, 4)" },
        { name: "progress", description: "Recording what a person watched" },
        { name: "token API", description: "POST with the access token; answers and errors in the `{ code, data }` envelope" },
        { name: "profile", description: "The signed-in person's profile" },
        { name: "content", description: "Instruction videos, documents, landing answers, the contact form" },
        { name: "recordings", description: "People's story recordings: private to their owner and admins" },
        { name: "users", description: "People, for admins (and each person for themself)" },
        { name: "analytics", description: "Product events from the web app" },
        { name: "auth", description: "Supabase-Auth compatible endpoints and the phone-number API" },
        { name: "messages", description: "The Message Center" },
        { name: "admin", description: "The operator console" },
        { name: "storage", description: "Public files with Range and caching" },
        { name: "other" },
      ],
    },
    transform: (input: TransformInput) => {
      if (!DOCUMENTED.test(input.url) || input.url.startsWith("/api/docs")) return { schema: { hide: true }, url: input.url };
      const schema = input.schema?.tags ? input.schema : { ...input.schema, tags: [defaultTag(input.url)] };
      try {
        return jsonSchemaTransform({ ...input, schema });
      } catch {
        // A route with a plain JSON schema (not zod) is documented as it is.
        return { schema, url: input.url };
      }
    },
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: "/api/docs",
    uiConfig: { docExpansion: "list", deepLinking: true, layout: "BaseLayout", tryItOutEnabled: false },
    theme: { title: "Hikaya API reference" },
  });
}
