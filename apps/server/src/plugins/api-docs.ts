import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
  type HTTPMethods,
} from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";

declare module "fastify" {
  interface FastifyInstance {
    /** The OpenAPI document of every documented route (built on first use, like GET /api/docs/json). */
    openApiDocument(): Promise<Record<string, unknown>>;
  }
}

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

interface DocumentedRoute {
  method: HTTPMethods | HTTPMethods[];
  url: string;
  schema?: FastifySchema;
}

/**
 * GET /api/docs: an OpenAPI document generated from the routes' zod schemas, with a readable reference page.
 * Registered on the root instance before any route, so it sees every one. @fastify/swagger works on each route as
 * it is added (about a fifth of start-up) for a page few people open: here the routes are only noted at start, and
 * a separate docs instance holding the same routes (schemas only) is built on the first docs request.
 */
export function registerApiDocs(app: FastifyInstance) {
  const routes = new Map<string, DocumentedRoute>();
  app.addHook("onRoute", (route) => {
    // HEAD twins of GET routes are Fastify's own; the docs instance makes them again.
    if (route.method === "HEAD" || !DOCUMENTED.test(route.url) || route.url.startsWith("/api/docs")) return;
    const key = `${String(route.method)} ${route.url}`;
    if (!routes.has(key))
      routes.set(key, { method: route.method, url: route.url, ...(route.schema ? { schema: route.schema } : {}) });
  });
  let docs: Promise<FastifyInstance> | undefined;
  const docsApp = () => {
    docs ??= buildDocsApp([...routes.values()]).catch((error: unknown) => {
      docs = undefined;
      throw error;
    });
    return docs;
  };
  app.decorate("openApiDocument", async () => (await docsApp()).swagger() as unknown as Record<string, unknown>);
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const res = await (await docsApp()).inject({
      method: request.method as HTTPMethods,
      url: request.url,
      headers: request.headers,
    });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    // An empty answer (a redirect) stays without a body, so Fastify gives it no content type.
    return reply.code(res.statusCode).send(res.rawPayload.length ? res.rawPayload : undefined);
  };
  app.get("/api/docs", forward);
  app.get("/api/docs/*", forward);
}

/** Headers of the docs instance's answer that belong to its own connection, not to the reply forwarded. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

async function buildDocsApp(routes: DocumentedRoute[]): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
  ]);
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
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
      if (input.url.startsWith("/api/docs")) return { schema: { hide: true }, url: input.url };
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
  // The routes' schemas only: the docs instance answers /api/docs and nothing else.
  const unused = async (_request: FastifyRequest, reply: FastifyReply) => reply.code(404).send();
  for (const route of routes) app.route({ ...route, handler: unused });
  await app.ready();
  return app;
}
