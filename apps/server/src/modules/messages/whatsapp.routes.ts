import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../../errors.ts";
import { registerFormBody } from "../../plugins/form-body.ts";
import { checkTwilioWebhook, handleInbound, isStopWord } from "../reminders/stop.service.ts";
import type { WhatsAppService } from "./whatsapp.service.ts";

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * The provider's webhook for the families' WhatsApp (`POST /api/messages/inbound/whatsapp`, the WhatsApp sender's
 * "a message comes in" URL): signed and keyed by MessageSid like the reminders' STOP webhook (the same check), and
 * there only while TWILIO_WHATSAPP_FROM is set. Always answered with an empty reply: nothing is sent back from here.
 */
export async function whatsappRoutes(fastify: FastifyInstance, service: WhatsAppService) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  registerFormBody(app);
  app.post(
    "/messages/inbound/whatsapp",
    {
      config: { access: "public" },
      schema: {
        tags: ["messages"],
        summary: "Inbound WhatsApp (Twilio-style): a family's text or voice note lands in their conversation",
        body: z.record(z.string(), z.string()),
      },
    },
    async (request, reply) => {
      if (!service.enabled) throw notFound("WhatsApp is not configured");
      const messageSid = checkTwilioWebhook(app.deps.config, request);
      const { From = "", Body = "", MediaUrl0, MediaContentType0 } = request.body;
      // A STOP (reminders go out by WhatsApp too) turns reminders off, as on the STOP webhook, and is no chat message;
      // a retry of it, already acted on, is not one either.
      if (isStopWord(Body)) {
        const stopped = await handleInbound(app.deps, { from: From, body: Body, messageSid });
        request.log.info({ messageSid, stopped }, "whatsapp: STOP");
        return reply.header("content-type", "text/xml").send(EMPTY_TWIML);
      }
      const media = MediaUrl0 ? { url: MediaUrl0, contentType: MediaContentType0 ?? "" } : null;
      const outcome = await service.receive({ from: From, body: Body, messageSid, media });
      // An unknown number is stored nowhere and answered by nothing; operators see it in the log (last digits only).
      if (outcome === "unknown_sender")
        request.log.warn({ messageSid, from: `…${From.slice(-4)}` }, "whatsapp: message from a number with no account");
      else request.log.info({ messageSid, outcome }, "whatsapp: inbound message");
      return reply.header("content-type", "text/xml").send(EMPTY_TWIML);
    },
  );
}
