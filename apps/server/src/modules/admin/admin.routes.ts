import {
  adminAnalyticsSchema,
  adminCharacterSchema,
  adminLandingAnswerSchema,
  adminMediaSchema,
  adminSettingsSchema,
  adminUserDetailSchema,
  analyticsQuerySchema,
  answerInputSchema,
  auditPageSchema,
  auditQuerySchema,
  characterInputSchema,
  contactPageSchema,
  contactQuerySchema,
  documentInputSchema,
  documentKeySchema,
  instructionInputSchema,
  instructionLocationSchema,
  landingAnswerInputSchema,
  reorderSchema,
  settingsInputSchema,
  UPLOAD_LIMITS,
  UPLOAD_PURPOSES,
  uploadPurposeSchema,
  uploadResultSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { badRequest } from "../../errors.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { multipartFile, registerMultipart } from "../../plugins/multipart.ts";
import { type Actor, actorOf, audit, listAudit } from "../audit/audit.service.ts";
import { optionalUser } from "../auth/guards.ts";
import { admitMedia } from "../media/admission.ts";
import { checkDeclaredSize, storeUpload } from "../storage/uploads.service.ts";
import { getAnalytics } from "./analytics.service.ts";
import { arabicMediaRoutes } from "./arabic-media.routes.ts";
import * as content from "./content.service.ts";
import { peopleActionRoutes } from "./people.routes.ts";
import * as people from "./people.service.ts";
import { savedRepliesRoutes } from "./saved-replies.routes.ts";
import { storiesAdminRoutes } from "./stories.routes.ts";
import { teamRoutes } from "./team.routes.ts";

const idParams = z.object({ id: z.string().min(1).max(100) });

declare module "fastify" {
  interface FastifyRequest {
    adminActor?: Actor;
  }
}

const actor = (request: FastifyRequest): Actor => {
  if (!request.adminActor) throw new Error("admin guard did not run");
  return request.adminActor;
};

/**
 * The operator console's API, everything under /api/admin/*. One hook refuses visitors (401) and
 * non-admins (403) before any route runs, so no admin route can forget its check. Every change is
 * written to the audit log in the same transaction.
 */
export async function adminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  await registerMultipart(app, { limits: { fileSize: UPLOAD_LIMITS.video, files: 1, fields: 10, parts: 12 } });
  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "private, no-store");
    // Which role each route needs is decided and checked in access.ts (a route hook, after this one); this only
    // names the actor for the audit log.
    const auth = await optionalUser(request);
    if (auth) request.adminActor = actorOf(auth);
  });

  teamRoutes(app, actor);
  peopleActionRoutes(app, actor);
  savedRepliesRoutes(app, actor);

  // ─── uploads ──────────────────────────────────────────────────────────────────────────────────

  /** Reads the one file of a multipart request, refusing one declared too large before reading it. */
  async function fileOf(request: FastifyRequest, kind: keyof typeof UPLOAD_LIMITS) {
    checkDeclaredSize(request.headers["content-length"], kind);
    const part = await multipartFile(request, { fileSize: UPLOAD_LIMITS[kind], files: 1, fields: 10, parts: 12 });
    if (!part) throw badRequest("No file in the request");
    return part.file;
  }

  app.post(
    "/uploads/:purpose",
    {
      schema: {
        tags: ["admin"],
        summary: "Upload a file for the program (streamed; type judged by its first bytes)",
        params: z.object({ purpose: uploadPurposeSchema }),
        response: { 200: uploadResultSchema, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const { purpose } = request.params;
      const { kind, bucket } = UPLOAD_PURPOSES[purpose];
      // Voices and videos are measured before they are kept: too long, too large a picture, or unreadable is refused.
      const admit =
        kind === "video" || kind === "audio"
          ? (file: string) => admitMedia(app.deps, file, kind === "video" ? "video" : "voice")
          : undefined;
      try {
        const stored = await storeUpload(app.deps.storage, await fileOf(request, kind), { kind, bucket, admit });
        // The media module decides what to process now (what plays from where it was uploaded) and what later
        // (story videos and question media, as the private copy a story makes: storage/story-media.ts).
        await app.deps.fileEvents.fileStored({
          bucket,
          key: stored.key,
          contentType: stored.contentType,
          use: { kind: "upload", purpose },
        });
        await audit(
          app.deps.db,
          actor(request),
          "file.upload",
          { type: "file", id: stored.path },
          { purpose, size: stored.size },
        );
        return { path: stored.path, size: stored.size, contentType: stored.contentType };
      } catch (error) {
        // The rest of a refused body is not worth reading.
        reply.header("connection", "close");
        throw error;
      }
    },
  );

  storiesAdminRoutes(app, actor, (request) => fileOf(request, "image"));
  arabicMediaRoutes(app, actor, (request) => fileOf(request, "image"));

  // ─── family members, landing answers, instruction videos, documents ───────────────────────────

  const characterList = { 200: z.array(adminCharacterSchema), ...errorResponses(400, 404, 409) };
  app.get("/characters", { schema: { tags: ["admin"], response: characterList } }, async () =>
    content.listCharacters(app.deps.db),
  );
  app.post("/characters", { schema: { tags: ["admin"], body: characterInputSchema, response: characterList } }, async (request) =>
    content.createCharacter(app.deps, actor(request), request.body),
  );
  app.put(
    "/characters/:id",
    { schema: { tags: ["admin"], params: idParams, body: characterInputSchema, response: characterList } },
    async (request) => content.updateCharacter(app.deps, actor(request), request.params.id, request.body),
  );
  app.delete("/characters/:id", { schema: { tags: ["admin"], params: idParams, response: characterList } }, async (request) =>
    content.deleteCharacter(app.deps, actor(request), request.params.id),
  );

  const landingList = { 200: z.array(adminLandingAnswerSchema), ...errorResponses(400, 404, 409) };
  app.get("/landing-answers", { schema: { tags: ["admin"], response: landingList } }, async () =>
    content.listLandingAnswers(app.deps.db),
  );
  app.post("/landing-answers", { schema: { tags: ["admin"], body: answerInputSchema, response: landingList } }, async (request) =>
    content.addLandingAnswer(app.deps, actor(request), request.body),
  );
  app.put(
    "/landing-answers/:id",
    { schema: { tags: ["admin"], params: idParams, body: landingAnswerInputSchema, response: landingList } },
    async (request) => content.updateLandingAnswer(app.deps, actor(request), request.params.id, request.body),
  );
  app.post(
    "/landing-answers/reorder",
    { schema: { tags: ["admin"], body: reorderSchema, response: landingList } },
    async (request) => content.reorderLandingAnswers(app.deps, actor(request), request.body),
  );
  app.delete("/landing-answers/:id", { schema: { tags: ["admin"], params: idParams, response: landingList } }, async (request) =>
    content.deleteLandingAnswer(app.deps, actor(request), request.params.id),
  );

  const mediaResponse = { 200: adminMediaSchema, ...errorResponses(400, 409) };
  app.get("/media", { schema: { tags: ["admin"], response: mediaResponse } }, async () => content.getMedia(app.deps.db));
  app.put(
    "/instructions/:location",
    {
      schema: {
        tags: ["admin"],
        params: z.object({ location: instructionLocationSchema }),
        body: instructionInputSchema,
        response: mediaResponse,
      },
    },
    async (request) => content.setInstruction(app.deps, actor(request), request.params.location, request.body),
  );
  app.put(
    "/documents/:key",
    {
      schema: {
        tags: ["admin"],
        params: z.object({ key: documentKeySchema }),
        body: documentInputSchema,
        response: mediaResponse,
      },
    },
    async (request) => content.setDocument(app.deps, actor(request), request.params.key, request.body),
  );

  // ─── site settings ────────────────────────────────────────────────────────────────────────────

  app.get("/settings", { schema: { tags: ["admin"], response: { 200: adminSettingsSchema } } }, async () =>
    content.getAdminSettings(app.deps.db),
  );
  app.put(
    "/settings",
    { schema: { tags: ["admin"], body: settingsInputSchema, response: { 200: adminSettingsSchema, ...errorResponses(400) } } },
    async (request) => content.updateSettings(app.deps, actor(request), request.body),
  );

  // ─── people ───────────────────────────────────────────────────────────────────────────────────

  app.get(
    "/users/:id/detail",
    { schema: { tags: ["admin"], params: idParams, response: { 200: adminUserDetailSchema, ...errorResponses(404) } } },
    async (request) => people.getUserDetail(app.deps.db, request.params.id),
  );
  app.get(
    "/contact-submissions",
    {
      schema: {
        tags: ["admin"],
        summary: "Contact messages, newest first, a page at a time; q searches name, e-mail, phone and text",
        querystring: contactQuerySchema,
        response: { 200: contactPageSchema, ...errorResponses(400) },
      },
    },
    async (request) => people.listContacts(app.deps.db, request.query),
  );
  app.put(
    "/contact-submissions/:id",
    {
      schema: {
        tags: ["admin"],
        params: idParams,
        body: z.object({ handled: z.boolean() }),
        response: { 200: z.object({ ok: z.literal(true) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      await people.markContact(app.deps, actor(request), request.params.id, request.body.handled);
      return { ok: true as const };
    },
  );

  // ─── analytics and audit ──────────────────────────────────────────────────────────────────────

  app.get(
    "/analytics",
    {
      schema: {
        tags: ["admin"],
        querystring: analyticsQuerySchema,
        response: { 200: adminAnalyticsSchema, ...errorResponses(400) },
      },
    },
    async (request) => getAnalytics(app.deps.db, request.query.from, request.query.to),
  );
  app.get(
    "/audit",
    {
      schema: {
        tags: ["admin"],
        summary: "The audit log, newest first, a page at a time; q searches who, what and the details",
        querystring: auditQuerySchema,
        response: { 200: auditPageSchema, ...errorResponses(400) },
      },
    },
    async (request) => listAudit(app.deps.db, request.query),
  );
}
