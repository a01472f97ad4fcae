import {
  keepsakeLinkParamsSchema,
  keepsakeSchema,
  keepsakeSettingsSchema,
  keepsakeShareSchema,
  keepsakeUserParamsSchema,
  mediaLanguageQuerySchema,
} from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf } from "../audit/audit.service.ts";
import { requireAdmin, requireUser } from "../auth/guards.ts";
import { sendObject } from "../storage/object-response.ts";
import { familyMessageRoutes } from "./family-messages.routes.ts";
import { keepsakeForOperator, keepsakeOf, revokeKeepsakeLink, saveKeepsakeSettings, shareKeepsake } from "./keepsake.service.ts";
import { keepsakeExportOf, zipStream } from "./keepsake-export.service.ts";
import { listeningAudioOf, listeningPageOf } from "./listening.service.ts";
import { linkNotFoundPage, listeningPage } from "./listening-page.ts";
import { sendPage } from "./page-response.ts";

const NO_STORE = "private, no-store";

/** The family's keepsake (/api/keepsake…) and an admin's printable copy of a person's. */
export async function keepsakeRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ok = { 200: keepsakeSchema };

  app.get(
    "/keepsake",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "The caller's keepsake: watched stories, the voices they could hold, and live share links",
        querystring: mediaLanguageQuerySchema,
        response: { ...ok, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return keepsakeOf(app.deps, auth.userId, request.query.lang ?? "en");
    },
  );

  app.put(
    "/keepsake",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Save the keepsake's title, dedication and voices (in their order)",
        querystring: mediaLanguageQuerySchema,
        body: keepsakeSettingsSchema,
        response: { ...ok, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return saveKeepsakeSettings(app.deps, auth.userId, request.body, request.query.lang ?? "en");
    },
  );

  app.post(
    "/keepsake/share",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Share the book: a whole-book link and one per voice, with the chosen expiry",
        body: keepsakeShareSchema,
        response: { ...ok, ...errorResponses(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return shareKeepsake(app.deps, auth.userId, request.body);
    },
  );

  app.post(
    "/keepsake/links/:id/revoke",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Revoke one of the caller's share links: its pages answer 404 from now on",
        params: keepsakeLinkParamsSchema,
        querystring: mediaLanguageQuerySchema,
        response: { ...ok, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return revokeKeepsakeLink(app.deps, auth.userId, request.params.id, request.query.lang ?? "en");
    },
  );

  app.get(
    "/keepsake/export",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Download everything: a ZIP of the recordings, the family's answers in the book and an index.html",
        description:
          "Streamed as it is read (never held whole): each voice's AAC copy when processing made it, else the file as " +
          "sent; `index.html` lists them in the book's order, in `lang`, with relative links that open offline.",
        querystring: mediaLanguageQuerySchema,
        produces: ["application/zip"],
        response: { 200: z.unknown().describe("The ZIP (application/zip)"), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      const { files, index } = await keepsakeExportOf(app.deps, auth.userId, request.query.lang ?? "en");
      return reply
        .header("cache-control", NO_STORE)
        .header("content-type", "application/zip")
        .header("content-disposition", 'attachment; filename="hikaya-keepsake.zip"')
        .send(await zipStream(app.deps, files, index));
    },
  );

  // Outside /api/admin on purpose: the console's role table covers that prefix, and this is admins only.
  app.get(
    "/keepsake/people/:userId",
    {
      config: { access: "admin" },
      schema: {
        tags: ["keepsake"],
        summary: "A person's printable keepsake, for programs that print and mail books (admins; audited)",
        params: keepsakeUserParamsSchema,
        querystring: mediaLanguageQuerySchema,
        response: { ...ok, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      reply.header("cache-control", NO_STORE);
      return keepsakeForOperator(app.deps, actorOf(auth), request.params.userId, request.query.lang ?? "en");
    },
  );
}

const tokenParams = z.object({ token: z.string().max(100) });
const audioParams = tokenParams.extend({ voice: z.string().max(120) });

/**
 * The listening pages a share link opens, without an account (`/k/<token>`), registered explicitly so the web
 * app's not-found handler never answers them. Every failure is the same 404 page in both languages.
 */
export async function listeningRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const page = sendPage;

  app.get(
    "/k/:token",
    { schema: { tags: ["keepsake"], summary: "A share link's listening page (HTML, no account)", params: tokenParams } },
    async (request, reply) => {
      try {
        return page(reply, 200, listeningPage(request.params.token, await listeningPageOf(app.deps, request.params.token)));
      } catch (error) {
        if (error instanceof AppError && error.code === "not_found") return page(reply, 404, linkNotFoundPage());
        throw error;
      }
    },
  );

  app.route({
    method: ["GET", "HEAD"],
    url: "/k/:token/:voice/audio",
    schema: { tags: ["keepsake"], summary: "A shared voice's audio, with Range and ETag", params: audioParams },
    handler: async (request, reply) => {
      const file = await listeningAudioOf(app.deps, request.params.token, request.params.voice);
      return sendObject(request, reply, app.deps.storage, file.bucket, file.key, "private, no-store");
    },
  });
}

/** The module's one registration: the family's API under /api and the public listening pages under /k. */
export async function keepsakeModule(fastify: FastifyInstance) {
  await fastify.register(keepsakeRoutes, { prefix: "/api" });
  await fastify.register(listeningRoutes);
  await fastify.register(familyMessageRoutes);
}
