import type { FastifyInstance } from "fastify";

/**
 * Form-encoded bodies as a flat record of strings, in the plugin scope it is called in: the provider's webhooks
 * (Twilio posts form-encoded) and the stop page's form.
 */
export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 64 * 1024 }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
}
