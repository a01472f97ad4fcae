import {
  accountMessageSchema,
  accountSettingsSchema,
  deleteAccountRequestSchema,
  phoneChangeRequestSchema,
  phoneVerifyRequestSchema,
  preferencesRequestSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { sendError, toAppError } from "../../plugins/error-handler.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { AuthError } from "../auth/auth-errors.ts";
import { requireUser } from "../auth/guards.ts";
import { languageFromHeader } from "../auth/texts.ts";
import {
  accountSettings,
  cancelPhoneChange,
  deleteAccount,
  requestPhoneChange,
  savePreferences,
  verifyPhoneChange,
  withDefaultMode,
} from "./account.service.ts";

const meta = (request: FastifyRequest): RequestMeta => {
  const ua = request.headers["user-agent"];
  return {
    ip: request.ip,
    userAgent: typeof ua === "string" ? ua : null,
    language: languageFromHeader(request.headers["accept-language"]),
  };
};

/** The signed-in person's own account under /api/account (contract: packages/contracts/src/account.ts). */
export async function accountSettingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Auth rules speak Supabase's codes; here they become the shared list's codes.
  app.setErrorHandler((error, request, reply) =>
    sendError(reply, error instanceof AuthError ? error.toAppError() : toAppError(error, request)),
  );
  const tags = ["account"];
  // Every answer here carries the viewing mode, whose default follows the request's Save-Data header.
  app.addHook("preSerialization", async (request, reply, payload: unknown) => {
    reply.header("vary", "Save-Data");
    const settings = accountSettingsSchema.safeParse(payload);
    return settings.success ? withDefaultMode(settings.data, request.headers["save-data"] === "on") : payload;
  });

  app.get(
    "/account",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "The caller's account: login phone, consent answers, language, a pending phone change",
        response: { 200: accountSettingsSchema, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", "private, no-store");
      return accountSettings(app.deps, auth.userId);
    },
  );

  app.post(
    "/account/preferences",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "Reminders, WhatsApp opt-in and language; each answer is stored with its time",
        body: preferencesRequestSchema,
        response: { 200: accountSettingsSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => savePreferences(app.deps, (await requireUser(request)).userId, request.body),
  );

  app.post(
    "/account/phone",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "Start changing the login phone: a code is sent to the new number by SMS or WhatsApp",
        body: phoneChangeRequestSchema,
        response: { 200: accountSettingsSchema, ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (request) => requestPhoneChange(app.deps, await requireUser(request), request.body, meta(request)),
  );

  app.post(
    "/account/phone/verify",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "The code sent to the new number makes it the login phone",
        body: phoneVerifyRequestSchema,
        response: { 200: accountSettingsSchema, ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (request) => verifyPhoneChange(app.deps, await requireUser(request), request.body.code, meta(request)),
  );

  app.post(
    "/account/phone/cancel",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "Forget a pending phone change",
        response: { 200: accountSettingsSchema, ...errorResponses(401) },
      },
    },
    async (request) => cancelPhoneChange(app.deps, (await requireUser(request)).userId),
  );

  app.post(
    "/account/delete",
    {
      config: { access: "user" },
      schema: {
        tags,
        summary: "Delete the account and everything it holds (password required)",
        body: deleteAccountRequestSchema,
        response: { 200: accountMessageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => deleteAccount(app.deps, (await requireUser(request)).userId, request.body.password, meta(request)),
  );
}
