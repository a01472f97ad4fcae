import {
  chatMessageSchema,
  clientIdSchema,
  conversationAssignmentSchema,
  conversationListRequestSchema,
  conversationListSchema,
  conversationPersonSchema,
  envelopeSchema,
  greetingSchema,
  inboxBadgeSchema,
  MESSAGE_CURSOR,
  MESSAGES_PAGE_MAX,
  messagesPageRequestSchema,
  messagesPageSchema,
  messageTypeSchema,
  transcriptSchema,
  unreadCountSchema,
  VOICE_NOTE_MAX_BYTES,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError, forbidden } from "../../errors.ts";
import { multipartParts, registerMultipart } from "../../plugins/multipart.ts";
import { actorOf } from "../audit/audit.service.ts";
import { type AuthContext, requireOperator, requireUser } from "../auth/guards.ts";
import { voiceCopyOf } from "../media/media.service.ts";
import { notifyReply } from "../reminders/push.service.ts";
import { sendObject } from "../storage/object-response.ts";
import { LiveHub } from "./live-hub.ts";
import { LiveStreams, openLiveStream } from "./live-streams.ts";
import { MessagesService, type Sender, type SendInput, toChatMessage, VOICE_BUCKET } from "./messages.service.ts";
import { OperatorAlerts } from "./operator-alerts.service.ts";
import { OperatorPresence } from "./operator-presence.service.ts";
import { teamInboxRoutes } from "./team-inbox.routes.ts";
import { TeamInboxService } from "./team-inbox.service.ts";
import { whatsappRoutes } from "./whatsapp.routes.ts";
import { WhatsAppService } from "./whatsapp.service.ts";

const PRIVATE_CACHE = "private, max-age=3600";
const pageQuery = z.object({
  before: z.string().regex(MESSAGE_CURSOR).optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGES_PAGE_MAX).optional(),
});
const userParams = z.object({ userId: z.string().min(1).max(100) });
const ok = z.object({ ok: z.literal(true) });

/** Fields a client may not use to speak for someone else or write into another conversation. */
const SENDER_FIELDS = ["from", "sender", "senderId", "sender_id", "senderRole", "sender_role"];
const TARGET_FIELDS = ["to", "user", "userId", "user_id", "conversation", "conversationId"];

/**
 * Message Center HTTP surface.
 *   Token API (POST, `{code, data}`): /messages, /message/send, /messages/read.
 *   Reads: GET /messages/greeting, GET /messages/audio/:id (private voice notes, Range).
 *   Live: GET /messages/stream (the caller's conversation), GET /admin/messages/stream (all; admins).
 *   Facilitators: /admin/conversations… list, read, reply, mark read, the person beside it.
 */
export async function messageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  await registerMultipart(app);

  const { db, database, storage, bus } = app.deps;
  const hub = new LiveHub(db, bus, toChatMessage, database.dialect);
  await hub.start();
  // A family's message pushed to operators with no console open; presence says who has one, on any replica.
  const alerts = new OperatorAlerts(app.deps, (error) => app.log.warn({ err: error }, "push: operator alert failed"));
  const service = new MessagesService(db, database.dialect, storage, hub, app.deps, (row) => alerts.stored(row));
  const presence = new OperatorPresence(db);
  const streams = new LiveStreams(hub, (sessionId) => app.deps.auth.sessions.isActive(sessionId), presence);
  app.deps.metrics.gauge("live_streams_open", () => [{ labels: {}, value: streams.size }]);
  const stopRechecking = app.deps.auth.sessions.onForget((changed) => streams.recheck(changed));
  app.addHook("preClose", async () => {
    stopRechecking();
    streams.close();
    await presence.close().catch(() => undefined);
    await hub.close();
  });
  teamInboxRoutes(app, new TeamInboxService(app.deps, service, hub));
  const whatsapp = new WhatsAppService(app.deps, database.dialect, service);
  // Its own scope: the form-encoded body parser is the webhook's alone.
  await app.register((child) => whatsappRoutes(child, whatsapp));

  /** Reads a send form (multipart, or JSON for text), storing a voice note as it streams past. */
  async function readSendForm(request: FastifyRequest, conversationUserId: string, caller: AuthContext, role: Sender["role"]) {
    const fields: Record<string, string> = {};
    const check = () => {
      for (const f of SENDER_FIELDS) {
        const v = fields[f];
        if (v !== undefined && v !== caller.userId && v !== role) throw forbidden("You can only send messages as yourself");
      }
      for (const f of TARGET_FIELDS) {
        const v = fields[f];
        if (v !== undefined && v !== conversationUserId) throw forbidden("You can only write in your own conversation");
      }
    };
    let stored: { key: string; contentType: string } | null = null;
    try {
      if (request.isMultipart()) {
        const limits = { files: 1, fields: 20, fieldSize: 16 * 1024, fileSize: VOICE_NOTE_MAX_BYTES + 64 * 1024 };
        for await (const part of multipartParts(request, limits)) {
          if (part.type === "file") {
            if (part.fieldname !== "audio") {
              part.file.resume();
              throw new AppError("validation_failed", "The voice note goes in the field 'audio'");
            }
            check();
            stored = await service.storeVoiceNote(conversationUserId, part.file);
          } else {
            fields[part.fieldname] = String(part.value ?? "");
            check();
          }
        }
      } else {
        const body = (request.body ?? {}) as Record<string, unknown>;
        for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) fields[k] = String(v);
        check();
      }
      const messageType = fields.messageType ? messageTypeSchema.safeParse(fields.messageType) : undefined;
      if (messageType && !messageType.success) throw new AppError("validation_failed", "messageType must be text or audio");
      const clientId = fields.clientId ? clientIdSchema.safeParse(fields.clientId) : undefined;
      if (clientId && !clientId.success) throw new AppError("validation_failed", "clientId is invalid");
      const input: SendInput = {
        messageType: messageType?.data,
        text: fields.message,
        audio: stored,
        durationSeconds: fields.durationSeconds ? Number(fields.durationSeconds) : undefined,
        clientId: clientId?.data,
      };
      return { input, stored };
    } catch (error) {
      if (stored) await service.discardVoiceNote(stored.key);
      throw error;
    }
  }

  async function send(
    request: FastifyRequest,
    conversationUserId: string,
    caller: AuthContext,
    role: Sender["role"],
    channel: SendInput["channel"] = "app",
  ) {
    const { input, stored } = await readSendForm(request, conversationUserId, caller, role);
    try {
      const result = await service.send(conversationUserId, { userId: caller.userId, role }, { ...input, channel });
      if (stored && !result.created) await service.discardVoiceNote(stored.key);
      return result;
    } catch (error) {
      if (stored) await service.discardVoiceNote(stored.key);
      throw error;
    }
  }

  // ── Token API (the family's side) ────────────────────────────────────────────────────────────
  app.post(
    "/messages",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "The caller's messages: newest page first, `before` (a message id) for older pages, plus the greeting audio",
        body: messagesPageRequestSchema.optional(),
        response: {
          200: envelopeSchema(
            messagesPageSchema.extend({ greeting: z.string().nullable(), greetingTranscript: transcriptSchema.nullable() }),
          ),
        },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      const before = request.body?.before ? Number(request.body.before) : undefined;
      const page = await service.page(auth.userId, before, request.body?.limit);
      // The first page carries the greeting and its words; older pages neither.
      const greeting = before === undefined ? await service.greeting() : null;
      return {
        code: 200 as const,
        data: { ...page, greeting: greeting?.audio ?? null, greetingTranscript: greeting?.transcript ?? null },
      };
    },
  );

  app.post(
    "/message/send",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "Send a message: multipart `message` + `messageType` text, or an `audio` file with messageType audio (10 MB)",
        consumes: ["multipart/form-data", "application/json"],
        response: { 200: envelopeSchema(chatMessageSchema) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      return { code: 200 as const, data: (await send(request, auth.userId, auth, "user")).message };
    },
  );

  app.post(
    "/messages/read",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "Mark the facilitators' messages read up to a message id (default: all)",
        body: z.object({ upTo: z.coerce.number().int().min(0).optional() }).optional(),
        response: { 200: envelopeSchema(ok) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      await service.markRead(auth.userId, "user", request.body?.upTo);
      return { code: 200 as const, data: { ok: true as const } };
    },
  );

  app.get(
    "/messages/greeting",
    {
      config: { access: "user" },
      schema: { tags: ["messages"], summary: "The greeting audio shown first in the chat", response: { 200: greetingSchema } },
    },
    async (request) => {
      await requireUser(request);
      return service.greeting();
    },
  );

  app.route({
    method: ["GET", "HEAD"],
    url: "/messages/audio/:id",
    config: { access: "user" },
    schema: {
      tags: ["messages"],
      summary: "A voice message's audio (the conversation's owner and facilitators only; Range supported)",
      params: z.object({ id: z.string().regex(/^\d{1,15}$/) }),
    },
    handler: async (request, reply) => {
      const auth = await requireUser(request);
      const original = await service.voiceNoteKey(Number(request.params.id), auth);
      // The AAC-in-MP4 copy once it is ready (modules/media), else the note as it was recorded. The original is
      // asked for again on each play (no-cache: its ETag answers 304), so a phone that cannot play a WebM gets the
      // copy seconds later instead of keeping the original for the hour the copy is kept.
      const copy = await voiceCopyOf(app.deps, VOICE_BUCKET, original);
      return sendObject(request, reply, storage, VOICE_BUCKET, copy ?? original, copy ? PRIVATE_CACHE : "private, no-cache");
    },
  });

  // The stream URL may carry the access token (?access_token=): these routes log only warnings and up,
  // so the "incoming request" line with the URL never reaches the logs.
  app.get(
    "/messages/stream",
    {
      config: { access: "public" },
      logLevel: "warn",
      schema: {
        tags: ["messages"],
        summary: "Live messages of the caller's conversation (SSE; ?access_token=, Last-Event-ID or ?after=)",
      },
    },
    async (request, reply) => openLiveStream(request, reply, "own", streams),
  );
  app.get(
    "/admin/messages/stream",
    { logLevel: "warn", schema: { tags: ["messages"], summary: "Facilitators: live messages of every conversation (SSE)" } },
    async (request, reply) => openLiveStream(request, reply, "all", streams),
  );

  app.get(
    "/messages/unread",
    {
      config: { access: "user" },
      schema: {
        tags: ["messages"],
        summary: "How many facilitator messages the caller has not read (the menu's Message Center count)",
        response: { 200: unreadCountSchema },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", "private, no-store");
      return { count: await service.unreadForUser(auth.userId) };
    },
  );

  // ── Facilitators (admins) ───────────────────────────────────────────────────────────────────
  app.get(
    "/admin/conversations/waiting",
    {
      schema: {
        tags: ["messages"],
        summary:
          "Facilitators: how many conversations wait for a reply (`count`, the navigation's) and have unread messages (`unread`, the tab title's)",
        response: { 200: inboxBadgeSchema },
      },
    },
    async (request, reply) => {
      await requireOperator(request);
      reply.header("cache-control", "private, no-store");
      return service.waitingCount();
    },
  );

  app.get(
    "/admin/conversations",
    {
      schema: {
        tags: ["messages"],
        summary:
          "Facilitators: every conversation by last activity, paged by `cursor`; `q` searches name, phone (any form) and message text; `filter` unread | waiting | mine | unassigned; `counts` of the tabs",
        querystring: conversationListRequestSchema,
        response: { 200: conversationListSchema },
      },
    },
    async (request, reply) => {
      const auth = await requireOperator(request);
      reply.header("cache-control", "private, no-store");
      return service.conversations(request.query, auth.userId);
    },
  );

  for (const method of ["POST", "DELETE"] as const) {
    app.route({
      method,
      url: "/admin/conversations/:userId/assignee",
      schema: {
        tags: ["messages"],
        summary:
          method === "POST"
            ? "Facilitators: assign a conversation to me (audited)"
            : "Facilitators: unassign a conversation (audited)",
        params: userParams,
        response: { 200: conversationAssignmentSchema },
      },
      handler: async (request) => {
        const auth = await requireOperator(request);
        return service.assign(request.params.userId, actorOf(auth), method === "POST" ? auth.userId : null);
      },
    });
  }

  app.get(
    "/admin/conversations/:userId/messages",
    {
      schema: {
        tags: ["messages"],
        summary: "Facilitators: one conversation's messages, newest page first",
        params: userParams,
        querystring: pageQuery,
        response: { 200: messagesPageSchema },
      },
    },
    async (request) => {
      await requireOperator(request);
      await service.ensureConversationOwner(request.params.userId);
      const before = request.query.before ? Number(request.query.before) : undefined;
      return service.pageWithSenders(request.params.userId, before, request.query.limit);
    },
  );

  app.get(
    "/admin/conversations/:userId/person",
    {
      schema: {
        tags: ["messages"],
        summary: "Facilitators: the person beside a conversation (profile and watched stories)",
        params: userParams,
        response: { 200: conversationPersonSchema },
      },
    },
    async (request) => {
      await requireOperator(request);
      const [person, whatsappWindowUntil] = await Promise.all([
        service.person(request.params.userId),
        whatsapp.windowUntil(request.params.userId),
      ]);
      return { ...person, whatsappWindowUntil };
    },
  );

  app.post(
    "/admin/conversations/:userId/messages",
    {
      schema: {
        tags: ["messages"],
        summary: "Facilitators: reply by text or voice (same form as /message/send)",
        consumes: ["multipart/form-data", "application/json"],
        params: userParams,
        response: { 200: chatMessageSchema },
      },
    },
    async (request) => {
      const auth = await requireOperator(request);
      await service.ensureConversationOwner(request.params.userId);
      // A family that writes by WhatsApp is answered there too (a link to the chat once the 24-hour window closed).
      const route = await whatsapp.replyRoute(request.params.userId);
      const via = route?.via === "whatsapp" ? "whatsapp" : "app";
      const { message, created } = await send(request, request.params.userId, auth, "facilitator", via);
      // The person's browsers hear of the reply even with the app closed; a push failure never fails the reply.
      void notifyReply(app.deps, request.params.userId).catch((error) =>
        request.log.warn({ err: error }, "push: reply notification failed"),
      );
      if (route && created)
        void whatsapp
          .deliverReply(route, message)
          .catch((error) => request.log.warn({ err: error }, "whatsapp: reply not delivered"));
      return message;
    },
  );

  app.post(
    "/admin/conversations/:userId/read",
    {
      schema: {
        tags: ["messages"],
        summary: "Facilitators: mark a conversation read up to a message id (default: all)",
        params: userParams,
        body: z.object({ upTo: z.coerce.number().int().min(0).optional() }).optional(),
        response: { 200: ok },
      },
    },
    async (request) => {
      await requireOperator(request);
      await service.markRead(request.params.userId, "facilitator", request.body?.upTo);
      return { ok: true as const };
    },
  );
}
