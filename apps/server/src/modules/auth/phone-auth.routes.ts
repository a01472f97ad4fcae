import {
  accountMessageSchema,
  accountUserSchema,
  changePasswordRequestSchema,
  createAccountUserRequestSchema,
  outboxListSchema,
  pageQuerySchema,
  phoneSignUpRequestSchema,
  phoneSignUpResponseSchema,
  resetPasswordRequestSchema,
  sendOtpRequestSchema,
  sendOtpResponseSchema,
  teamJoinSchema,
  teamRecoverSchema,
  verifyOtpRequestSchema,
  verifyOtpResponseSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { decodeCursor, pageOf, searchText } from "../../db/paging.ts";
import { unauthorized } from "../../errors.ts";
import { sendError, toAppError } from "../../plugins/error-handler.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { Caller, RequestMeta } from "./auth.service.ts";
import { AuthError } from "./auth-errors.ts";
import { optionalUser, requireAdmin, requireUser } from "./guards.ts";
import { chooseLanguage, languageFromHeader } from "./texts.ts";

const meta = (request: FastifyRequest): RequestMeta => {
  const ua = request.headers["user-agent"];
  const body = request.body as { language?: unknown } | undefined;
  return {
    ip: request.ip,
    userAgent: typeof ua === "string" ? ua : null,
    language: chooseLanguage(body?.language, languageFromHeader(request.headers["accept-language"])),
  };
};

/** The phone-number account API (spec section 7) under /api; errors are the shared `{code, message}`. */
export async function phoneAuthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const phoneAuth = () => app.deps.auth.phoneAuth;

  // Auth rules speak Supabase's codes; here they become the shared list's codes.
  app.setErrorHandler((error, request, reply) =>
    sendError(reply, error instanceof AuthError ? error.toAppError() : toAppError(error, request)),
  );

  async function callerOf(request: FastifyRequest): Promise<Caller> {
    const auth = await requireUser(request);
    const caller = await app.deps.auth.service.callerOf(auth);
    if (!caller) throw unauthorized("Please log in.");
    return caller;
  }

  app.post(
    "/sign-up",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        body: phoneSignUpRequestSchema,
        response: { 200: phoneSignUpResponseSchema, ...errorResponses(400, 422, 429) },
      },
    },
    async (request) => phoneAuth().signUp(request.body, meta(request)),
  );

  app.post(
    "/send-otp",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        body: sendOtpRequestSchema,
        response: { 200: sendOtpResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (request) => phoneAuth().sendOtp(request.body, meta(request)),
  );

  // The console's own links (operator-access.service.ts): links are built from PUBLIC_URL, never the Host header.
  const linkMeta = (request: FastifyRequest) => ({
    ...meta(request),
    origin: app.deps.config.publicUrl ?? `http://localhost:${app.deps.config.port}`,
  });
  const operators = () => app.deps.auth.service.operators;

  app.post(
    "/team/join",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        summary: "Someone invited to the console sets their password with the code their invitation's link carried",
        body: teamJoinSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 422, 429) },
      },
    },
    async (request) => {
      await operators().setPassword("invite", request.body, meta(request));
      return { message: "Invitation accepted" };
    },
  );

  app.post(
    "/team/recover",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        summary: "An operator's forgotten password: a code and a link to the console's reset page, if the account is one",
        body: teamRecoverSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 429) },
      },
    },
    async (request) => {
      await operators().recover(request.body, linkMeta(request));
      return { message: "If this is an operator's account, a link is on its way" };
    },
  );

  app.post(
    "/team/reset-password",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        summary: "An operator sets a new password with the code their reset link carried; every session ends",
        body: teamJoinSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 422, 429) },
      },
    },
    async (request) => {
      await operators().setPassword("recovery", request.body, meta(request));
      return { message: "Password reset successfully" };
    },
  );

  app.post(
    "/verify-otp",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        body: verifyOtpRequestSchema,
        response: { 200: verifyOtpResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (request) => phoneAuth().verifyOtp(request.body, meta(request)),
  );

  app.post(
    "/reset-password",
    {
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        body: resetPasswordRequestSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 403, 422) },
      },
    },
    async (request) => {
      // The recovery session that passed the account's factor, if any; a stale or bad token counts as none.
      const session = await optionalUser(request).catch(() => null);
      return phoneAuth().resetPassword(request.body, meta(request), session);
    },
  );

  app.post(
    "/change-password",
    {
      config: { access: "user" },
      schema: {
        tags: ["auth"],
        body: changePasswordRequestSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 401, 422) },
      },
    },
    async (request) => phoneAuth().changePassword(await callerOf(request), request.body, meta(request)),
  );

  app.post(
    "/users",
    {
      config: { access: "user" },
      schema: {
        tags: ["auth"],
        body: createAccountUserRequestSchema,
        response: { 200: accountUserSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      return phoneAuth().upsertUser({ userId: auth.userId, isAdmin: auth.isAdmin }, request.body);
    },
  );

  app.get(
    "/admin/sms-outbox",
    {
      schema: {
        tags: ["admin"],
        summary: "The outbox, newest first, a page at a time; q searches the phone (or address) and the text",
        querystring: pageQuerySchema.extend({
          limit: z.coerce.number().int().min(1).max(500).default(100),
          /** Exactly this recipient (tests and scripts read a person's code this way). */
          recipient: z.string().max(255).optional(),
        }),
        response: { 200: outboxListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      await requireAdmin(request);
      const { limit, recipient, cursor } = request.query;
      const q = searchText(request.query.q);
      const rows = await app.deps.messages.list({
        limit: limit + 1,
        ...(recipient ? { recipient } : {}),
        ...(q ? { q } : {}),
        ...(cursor ? { after: decodeCursor<[string, string]>(cursor, ["string", "string"]) } : {}),
      });
      const page = pageOf(rows, limit, (m) => [m.createdAt, m.id]);
      const messages = page.rows;
      return {
        messages: messages.map((m) => ({ ...m, channel: m.channel as "sms" | "whatsapp" | "email" })),
        nextCursor: page.nextCursor,
      };
    },
  );
}
