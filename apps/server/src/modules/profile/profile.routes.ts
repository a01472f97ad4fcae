import { envelopeSchema, type Profile, profileSchema, profileUpdateFieldsSchema } from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../errors.ts";
import { envelopeErrorResponses, errorResponses } from "../../plugins/http-schemas.ts";
import { multipartParts, registerMultipart } from "../../plugins/multipart.ts";
import { requireUser } from "../auth/guards.ts";
import { profileJson, updateProfile } from "./profile.service.ts";

const FIELD_NAMES = ["name", "city", "gender", "ageGroup", "timeZone"] as const;

/** The profile form's fields, from multipart (as the spec's client sends them) or JSON; empty ones dropped. */
async function readProfileFields(request: FastifyRequest) {
  const raw: Record<string, unknown> = {};
  if (request.isMultipart()) {
    for await (const part of multipartParts(request)) {
      if (part.type === "file") part.file.resume();
      else if ((FIELD_NAMES as readonly string[]).includes(part.fieldname)) raw[part.fieldname] = part.value;
    }
  } else if (request.body && typeof request.body === "object") {
    Object.assign(raw, request.body);
  }
  for (const key of Object.keys(raw)) if (raw[key] === "" || raw[key] === null) delete raw[key];
  const parsed = profileUpdateFieldsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("validation_failed", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "is invalid"}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}

/** The signed-in person's profile: public API GET /profile and token API /profile, /profile/update. */
export async function profileRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/profile",
    {
      config: { access: "user" },
      schema: {
        tags: ["profile"],
        summary: "The caller's profile and watched stories",
        response: { 200: profileSchema, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", "private, no-store");
      // Already JSON bytes of the schema's type (profile.service.ts): sent as they are.
      const json = await profileJson(app.deps, auth.userId, false);
      return reply.type("application/json; charset=utf-8").send(json as unknown as Profile);
    },
  );

  app.post(
    "/profile",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "The caller's profile",
        response: { 200: envelopeSchema(profileSchema), ...envelopeErrorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      const json = await profileJson(app.deps, auth.userId, true);
      return reply.type("application/json; charset=utf-8").send(json as unknown as { code: 200; data: Profile });
    },
  );

  // In a scope of its own: @fastify/multipart adds two async hooks to every route beside it, which the profile
  // reads (the app's most frequent token API call) would pay for nothing.
  await app.register(profileUpdateRoutes);
}

/** Token API /profile/update: the one profile route that reads multipart. */
async function profileUpdateRoutes(fastify: FastifyInstance) {
  await registerMultipart(fastify, { limits: { fields: 10, fieldSize: 1024, files: 1, fileSize: 1024, parts: 12 } });
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    "/profile/update",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "Update name, city, gender, ageGroup, timeZone (multipart or JSON; empty fields are left as they are)",
        consumes: ["multipart/form-data", "application/json"],
        response: { 200: envelopeSchema(profileSchema), ...envelopeErrorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      const fields = await readProfileFields(request);
      return { code: 200 as const, data: await updateProfile(app.deps, auth.userId, fields) };
    },
  );
}
