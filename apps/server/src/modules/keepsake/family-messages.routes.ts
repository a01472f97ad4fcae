import {
  FAMILY_VOICE_MAX_BYTES,
  familyMessageCreatedSchema,
  familyMessageListSchema,
  familyMessageParamsSchema,
  familyMessageSchema,
  familyMessageStatusChangeSchema,
  type Language,
  recordIdSchema,
  recordingAudioQuerySchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { multipartParts, registerMultipart } from "../../plugins/multipart.ts";
import { actorOf } from "../audit/audit.service.ts";
import { requireAdmin, requireUser } from "../auth/guards.ts";
import type { StoredAudio } from "../recordings/recordings.service.ts";
import { RECORDINGS_BUCKET } from "../recordings/recordings.service.ts";
import { sendObject } from "../storage/object-response.ts";
import {
  answerFamilyQuestion,
  discardVoice,
  familyAudioFile,
  familyMessageList,
  leaveFamilyMessage,
  messageLinkOf,
  removeFamilyMessage,
  setFamilyMessageStatus,
  storeRelativeVoice,
  storeStorytellerAnswer,
} from "./family-messages.service.ts";
import { familyErrorKey, refusedBody, thanksBody } from "./family-page.ts";
import { FAMILY_SCRIPT, FAMILY_SCRIPT_ETAG } from "./family-script.ts";
import { linkNotFoundPage, shell } from "./listening-page.ts";
import { sendPage } from "./page-response.ts";

const NO_STORE = "private, no-store";
const tokenParams = z.object({ token: z.string().max(100) });
const FIELDS = new Set(["kind", "name", "text", "voice", "phone"]);

const isTooLarge = (error: unknown) =>
  (error instanceof AppError && error.code === "payload_too_large") ||
  (error as { code?: string })?.code === "FST_REQ_FILE_TOO_LARGE";

/** A form posted by a browser without script asks for a page; the recorder's script and API clients for JSON. */
const wantsPage = (request: FastifyRequest) => {
  const accept = request.headers.accept ?? "";
  return accept.includes("text/html") && !accept.startsWith("application/json");
};

/** Past a size limit the rest of the body is not worth reading: stop parsing it and close once answered. */
function stopReading(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (isTooLarge(error) && !request.raw.complete) {
    request.raw.unpipe();
    reply.header("connection", "close");
  }
}

/**
 * Relatives' messages through a share link (`/k/<token>/messages`, no account) and the storyteller's side
 * (`/api/family-messages`). Its own scope: the multipart parser is registered here for these routes only.
 */
export async function familyMessageRoutes(fastify: FastifyInstance) {
  await registerMultipart(fastify, {
    limits: { fileSize: FAMILY_VOICE_MAX_BYTES + 1, files: 2, fields: 10, fieldSize: 16 * 1024, parts: 12, headerPairs: 50 },
  });
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get("/k/family-reply.js", { schema: { hide: true } }, async (request, reply) => {
    reply.header("content-type", "text/javascript; charset=utf-8").header("cache-control", "public, max-age=3600");
    reply.header("etag", FAMILY_SCRIPT_ETAG);
    if (request.headers["if-none-match"] === FAMILY_SCRIPT_ETAG) return reply.code(304).send();
    return FAMILY_SCRIPT;
  });

  app.post(
    "/k/:token/messages",
    {
      // A browser's form (no script) reads every refusal as a page in the book's language, those made before the
      // handler runs too (the write limits' 429, a declared size over the limit); a revoked link is the 404 page. The
      // rest, and every JSON caller, goes on to the app's error handler.
      errorHandler: async (error, request, reply) => {
        if (!(error instanceof AppError) || error.status >= 500 || !wantsPage(request)) throw error;
        const context = await messageLinkOf(app.deps, (request.params as { token: string }).token).catch(() => null);
        if (!context) return sendPage(reply, 404, linkNotFoundPage());
        return refusedPage(reply, (request.params as { token: string }).token, context.language, error);
      },
      schema: {
        tags: ["keepsake"],
        summary: "A relative's reply or question through a share link (multipart: kind, name, text or audio, voice, phone)",
        description:
          "No account. `kind` is reply or question; `name` up to 80 characters; `text` up to 2000, or an `audio` file " +
          "(WAV, WebM, Ogg, MP4/AAC, MP3; at most 10 MB and 5 minutes); `voice` the voice replied to; `phone` (E.164) to " +
          "be told of the answer. A browser's form (Accept: text/html) is answered with a page in the book's language.",
        consumes: ["multipart/form-data"],
        params: tokenParams,
        response: { 201: familyMessageCreatedSchema, ...errorResponses(400, 404, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const page = wantsPage(request);
      const { link, language } = await messageLinkOf(app.deps, request.params.token);
      const fields: Record<string, string> = {};
      let stored: StoredAudio | null = null;
      try {
        for await (const part of multipartParts(request)) {
          if (part.type === "file") {
            // An empty file input (a form whose file part was left empty) carries no voice.
            if (part.fieldname !== "audio" || stored || part.filename === "") {
              part.file.resume();
              continue;
            }
            stored = await storeRelativeVoice(app.deps, link, part.file);
          } else if (FIELDS.has(part.fieldname) && !(part.fieldname in fields)) {
            fields[part.fieldname] = String(part.value);
          }
        }
        const created = await leaveFamilyMessage(app.deps, link, fields, stored);
        if (page) {
          const { title, body } = thanksBody(request.params.token, language, Boolean(fields.phone?.trim()));
          return sendPage(reply, 201, shell(language, title, body));
        }
        return reply.code(201).header("cache-control", "no-store").send(created);
      } catch (error) {
        await discardVoice(app.deps, stored);
        stopReading(request, reply, error);
        throw error;
      }
    },
  );

  app.get(
    "/api/family-messages",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "What relatives left through the caller's share links, newest first, with the pending count",
        response: { 200: familyMessageListSchema, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return familyMessageList(app.deps, auth.userId);
    },
  );

  app.post(
    "/api/family-messages/:id/status",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Show a relative's message in the book, or hide it",
        params: familyMessageParamsSchema,
        body: familyMessageStatusChangeSchema,
        response: { 200: familyMessageSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      return setFamilyMessageStatus(app.deps, auth.userId, request.params.id, request.body.status);
    },
  );

  app.post(
    "/api/family-messages/:id/answer",
    {
      config: { access: "user" },
      schema: {
        tags: ["keepsake"],
        summary: "Answer a relative's question with a recording (multipart: audio); the relative is told if they asked",
        consumes: ["multipart/form-data"],
        params: familyMessageParamsSchema,
        response: { 200: familyMessageSchema, ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", NO_STORE);
      let stored: StoredAudio | null = null;
      try {
        for await (const part of multipartParts(request)) {
          if (part.type !== "file") continue;
          if (part.fieldname !== "audio" || stored) {
            part.file.resume();
            continue;
          }
          stored = await storeStorytellerAnswer(app.deps, auth.userId, request.params.id, part.file);
        }
        if (!stored) throw new AppError("bad_request", "No recording found");
        return await answerFamilyQuestion(app.deps, auth.userId, request.params.id, stored);
      } catch (error) {
        await discardVoice(app.deps, stored);
        stopReading(request, reply, error);
        throw error;
      }
    },
  );

  // Operators (admins) see and remove abuse beside a person's keepsake; outside /api/admin as the keepsake's own is.
  const personParams = z.object({ userId: recordIdSchema });
  app.get(
    "/api/keepsake/people/:userId/family-messages",
    {
      config: { access: "admin" },
      schema: {
        tags: ["keepsake"],
        summary: "What relatives left in a person's book, for operators who remove abuse (admins)",
        params: personParams,
        response: { 200: familyMessageListSchema, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await requireAdmin(request);
      reply.header("cache-control", NO_STORE);
      return familyMessageList(app.deps, request.params.userId);
    },
  );

  app.delete(
    "/api/keepsake/people/:userId/family-messages/:id",
    {
      config: { access: "admin" },
      schema: {
        tags: ["keepsake"],
        summary: "Remove a relative's message from a person's book, with its recordings (admins; audited)",
        params: personParams.extend({ id: familyMessageParamsSchema.shape.id }),
        response: { 204: z.null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      await removeFamilyMessage(app.deps, actorOf(auth), request.params.userId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.route({
    method: ["GET", "HEAD"],
    url: "/api/family-messages/:id/:part",
    // The signed link is the proof (a relative's player has no account), checked in the handler.
    config: { access: "public" },
    schema: {
      tags: ["keepsake"],
      summary: "A relative's voice or the storyteller's answer, through the signed link the list gives",
      params: familyMessageParamsSchema.extend({ part: z.enum(["voice", "answer"]) }),
      querystring: recordingAudioQuerySchema,
    },
    handler: async (request, reply) => {
      const { expires, signature } = request.query;
      const key = await familyAudioFile(app.deps, request.params.id, request.params.part, expires, signature);
      return sendObject(request, reply, app.deps.storage, RECORDINGS_BUCKET, key, "private, max-age=0, must-revalidate");
    },
  });
}

function refusedPage(reply: FastifyReply, token: string, language: Language, error: AppError) {
  const field = (error.details as { field?: unknown; issues?: { path?: string }[] } | undefined) ?? {};
  const named = field.field ?? field.issues?.[0]?.path?.replace("/", "");
  const { title, body } = refusedBody(token, language, familyErrorKey(error.code, named));
  if (error.code === "rate_limited") {
    const retry = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    if (retry) reply.header("retry-after", String(retry));
  }
  return sendPage(reply, error.status, shell(language, title, body));
}
