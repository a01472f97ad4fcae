import {
  operatorPushSubscriptionInputSchema,
  operatorPushUnsubscribeSchema,
  pushKeySchema,
  pushSubscriptionInputSchema,
  pushUnsubscribeSchema,
  reminderPreviewRequestSchema,
  reminderPreviewSchema,
  reminderQueuePageSchema,
  reminderQueueQuerySchema,
  reminderRunResultSchema,
  reminderSettingsInputSchema,
  reminderSettingsSchema,
} from "@hikaya/contracts";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { registerFormBody } from "../../plugins/form-body.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import { actorOf, audit } from "../audit/audit.service.ts";
import { requireAdmin, requireOperator, requireUser } from "../auth/guards.ts";
import { languageFromHeader } from "../auth/texts.ts";
import { getSiteSettings } from "../settings/settings.service.ts";
import { subscribe, subscribeOperator, unsubscribe, vapidKeys } from "./push.service.ts";
import { listQueue } from "./queue.service.ts";
import { publicUrlOf, ReminderScheduler } from "./scheduler.ts";
import { getSettings, previewTemplate, saveSettings } from "./settings.service.ts";
import { checkStopToken, checkTwilioWebhook, handleInbound, useStopLink } from "./stop.service.ts";
import { type StopPageState, stopPage } from "./stop-page.ts";

const ok = z.object({ ok: z.literal(true) });
const tokenQuery = z.object({ token: z.string().max(2000).optional() });

/**
 * Story reminders (operators' settings, queue and "send now"; the stop link; the provider's inbound
 * webhook) and Web Push subscriptions. Registered under /api. Each replica runs the scheduler on a timer
 * (REMINDER_INTERVAL_SECONDS); jobs are claimed in the database, so a reminder is sent once.
 */
export async function reminderRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const scheduler = new ReminderScheduler(app.deps);
  const seconds = app.deps.config.reminderIntervalSeconds;
  if (seconds > 0) {
    let running: Promise<unknown> | null = null;
    const timer = setInterval(() => {
      running ??= scheduler
        .runDue()
        .catch((error) => app.log.error({ err: error }, "reminders: run failed"))
        .finally(() => {
          running = null;
        });
    }, seconds * 1000);
    timer.unref();
    app.addHook("onClose", async () => {
      clearInterval(timer);
      await running;
    });
  }

  // Twilio posts form-encoded webhooks, and the stop page's form posts the same way.
  registerFormBody(app);

  await app.register(adminReminderRoutes, { prefix: "/admin/reminders" });

  // ── The stop link (no sign-in) ──────────────────────────────────────────────────────────────────
  // The page is what a person sees in their browser, so every outcome (done, already used, not valid) is a
  // 200 page in their language; JSON callers of POST get the precise error codes (400, 409).
  // In the site's colour, as the app shows it.
  const sendPage = async (reply: FastifyReply, language: "en" | "ar", state: StopPageState, token?: string) => {
    const { primaryColor } = await getSiteSettings(app.deps.db);
    return reply
      .code(200)
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("referrer-policy", "no-referrer")
      .send(stopPage(language, state, token, primaryColor));
  };

  app.get(
    "/reminders/stop",
    {
      config: { access: "public" },
      schema: {
        tags: ["reminders"],
        summary: "The stop link's page: asks before turning reminders off",
        querystring: tokenQuery,
      },
    },
    async (request, reply) => {
      const fallback = languageFromHeader(request.headers["accept-language"]) ?? "ar";
      const token = request.query.token ?? "";
      try {
        const claims = checkStopToken(app.deps, token);
        return sendPage(reply, claims.language, "ask", token);
      } catch {
        return sendPage(reply, fallback, "invalid");
      }
    },
  );

  app.post(
    "/reminders/stop",
    {
      config: { access: "public" },
      schema: {
        tags: ["reminders"],
        summary: "Use a stop link: reminders off (once per link; JSON or the page's form)",
        body: z.object({ token: z.string().max(2000) }),
      },
    },
    async (request, reply) => {
      const wantsJson = String(request.headers["content-type"] ?? "").includes("json");
      if (wantsJson) {
        await useStopLink(app.deps, request.body.token);
        return { ok: true };
      }
      const fallback = languageFromHeader(request.headers["accept-language"]) ?? "ar";
      try {
        const claims = await useStopLink(app.deps, request.body.token);
        return sendPage(reply, claims.language, "done");
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const claims = error.code === "conflict" ? checkStopToken(app.deps, request.body.token) : null;
        return sendPage(reply, claims?.language ?? fallback, error.code === "conflict" ? "used" : "invalid");
      }
    },
  );

  // ── The provider's inbound webhook ("STOP") ─────────────────────────────────────────────────────
  app.post(
    "/reminders/inbound/twilio",
    {
      config: { access: "public" },
      schema: {
        tags: ["reminders"],
        summary: "Inbound SMS/WhatsApp (Twilio-style): STOP turns the sender's reminders off",
        body: z.record(z.string(), z.string()),
      },
    },
    async (request, reply) => {
      const messageSid =
        app.deps.config.sms.provider === "twilio"
          ? checkTwilioWebhook(app.deps.config, request)
          : request.body.MessageSid || undefined;
      const from = request.body.From ?? "";
      const stopped = from ? await handleInbound(app.deps, { from, body: request.body.Body ?? "", messageSid }) : false;
      request.log.info({ stopped }, "reminders: inbound message");
      return reply.header("content-type", "text/xml").send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    },
  );

  // ── Web Push subscriptions (the signed-in person's browsers) ────────────────────────────────────
  app.get(
    "/push/key",
    {
      config: { access: "public" },
      schema: { tags: ["push"], summary: "The VAPID public key browsers subscribe with", response: { 200: pushKeySchema } },
    },
    async () => ({ publicKey: (await vapidKeys(app.deps)).publicKey }),
  );

  app.post(
    "/push/subscription",
    {
      config: { access: "user" },
      schema: {
        tags: ["push"],
        summary: "Save this browser's push subscription (replies from the facilitators arrive as notifications)",
        body: pushSubscriptionInputSchema,
        response: { 200: ok, ...errorResponses(400, 401, 409) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      await subscribe(app.deps, auth.userId, request.body, languageFromHeader(request.headers["accept-language"]));
      return { ok: true as const };
    },
  );

  app.post(
    "/push/unsubscribe",
    {
      config: { access: "user" },
      schema: {
        tags: ["push"],
        summary: "Forget one browser's subscription, or (no endpoint) every one of the caller's",
        body: pushUnsubscribeSchema.optional(),
        response: { 200: ok, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const auth = await requireUser(request);
      await unsubscribe(app.deps, auth.userId, request.body?.endpoint);
      return { ok: true as const };
    },
  );

  // ── An operator's console browser ("Notify me on this device"; operators only: modules/admin/access.ts) ──
  app.post(
    "/admin/push/subscription",
    {
      schema: {
        tags: ["push"],
        summary: "Operators: this browser hears of families' messages while none of my consoles is open",
        body: operatorPushSubscriptionInputSchema,
        response: { 200: ok, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request) => {
      const auth = await requireOperator(request);
      const { language, ...subscription } = request.body;
      await subscribeOperator(app.deps, auth.userId, subscription, language);
      return { ok: true as const };
    },
  );

  app.post(
    "/admin/push/unsubscribe",
    {
      schema: {
        tags: ["push"],
        summary: "Operators: this browser no longer hears of families' messages",
        body: operatorPushUnsubscribeSchema,
        response: { 200: ok, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const auth = await requireOperator(request);
      await unsubscribe(app.deps, auth.userId, request.body.endpoint, "operator");
      return { ok: true as const };
    },
  );

  async function adminReminderRoutes(scope: FastifyInstance) {
    const admin = scope.withTypeProvider<ZodTypeProvider>();
    // Admins only: modules/admin/access.ts checks it for every /api/admin route, before the body is read.
    admin.addHook("onRequest", async (_request, reply) => {
      reply.header("cache-control", "private, no-store");
    });
    const tags = ["admin", "reminders"];

    admin.get(
      "/settings",
      {
        schema: {
          tags,
          summary: "Reminder rules and templates",
          response: { 200: reminderSettingsSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getSettings(app.deps.db),
    );

    admin.put(
      "/settings",
      {
        schema: {
          tags,
          summary:
            "Change the reminder rules and templates (audited); an unknown placeholder is refused, a stale `version` answers 409",
          body: reminderSettingsInputSchema,
          response: { 200: reminderSettingsSchema, ...errorResponses(400, 401, 403, 409) },
        },
      },
      async (request) => saveSettings(app.deps.db, actorOf(await requireAdmin(request)), request.body),
    );

    admin.post(
      "/preview",
      {
        schema: {
          tags,
          summary: "A template filled with sample values",
          body: reminderPreviewRequestSchema,
          response: { 200: reminderPreviewSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => ({
        text: await previewTemplate(app.deps.db, publicUrlOf(app.deps.config), request.body.language, request.body.template),
      }),
    );

    admin.post(
      "/run",
      {
        schema: {
          tags,
          summary: "Send the reminders due now (audited)",
          response: { 200: reminderRunResultSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const actor = actorOf(await requireAdmin(request));
        const result = await scheduler.runDue();
        await audit(app.deps.db, actor, "reminders.run", { type: "reminders" }, result);
        return result;
      },
    );

    admin.get(
      "/queue",
      {
        schema: {
          tags,
          summary: "Reminder jobs, newest first, by status, with paging",
          querystring: reminderQueueQuerySchema,
          response: { 200: reminderQueuePageSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => listQueue(app.deps.db, request.query),
    );
  }
}
