import { type Language, sessionHandoffSchema } from "@hikaya/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AppError, forbidden, unauthorized } from "../../errors.ts";
import { sendError, toAppError } from "../../plugins/error-handler.ts";
import { errorResponses } from "../../plugins/http-schemas.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { FormPages, type FormValues } from "./form-page.ts";
import { contactByForm, type FormFields, registerByForm, sendResetCodeByForm, signInByForm } from "./form-posts.service.ts";
import { languageOf } from "./route-preloads.ts";
import { HANDOFF_LANDING, HANDOFF_PATH, setHandoff, takeHandoff } from "./session-handoff.ts";

/** What a form may post: its named fields, as the browser encodes them. */
const formBody = z.record(z.string().max(64), z.string().max(10_000));
/** The fields put back into a page that is shown again: never a password. */
const KEPT_FIELDS: Record<string, string[]> = {
  "/login": ["username", "country", "remember"],
  "/register": ["username", "country", "agreeToReminder"],
  "/forgot-password": ["country", "phone"],
  "/contact": ["name", "phone", "city", "country", "gender", "message"],
};
const CHECKBOXES = new Set(["remember", "agreeToReminder"]);

/**
 * A cross-site page must not post these forms (signing a visitor in to someone else's account, filling the inbox
 * in their name): browsers say where a request comes from in Sec-Fetch-Site, older ones in Origin.
 */
function isCrossSite(request: FastifyRequest): boolean {
  const site = request.headers["sec-fetch-site"];
  if (typeof site === "string") return site !== "same-origin" && site !== "none";
  const origin = request.headers.origin;
  if (typeof origin !== "string") return false;
  const publicUrl = request.server.deps.config.publicUrl;
  try {
    const from = new URL(origin);
    return from.host !== request.host && from.origin !== (publicUrl ? new URL(publicUrl).origin : undefined);
  } catch {
    return true;
  }
}

const metaOf = (request: FastifyRequest, language: Language): RequestMeta => {
  const userAgent = request.headers["user-agent"];
  return { ip: request.ip, userAgent: typeof userAgent === "string" ? userAgent : null, language };
};

/**
 * The public screens' forms posted without scripts (before they load, or never): `method="post"` to these routes,
 * which do what the screen's script does and answer with a redirect (a sign-in handed to the app by a cookie,
 * session-handoff.ts) or the same prerendered page with what went wrong in the person's language. Only for the
 * site's own pages (Sec-Fetch-Site / Origin). Once its scripts run, a screen sends its own requests as before.
 */
export async function formPostRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const pages = new FormPages(app.deps.config.webDistDir);

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 64 * 1024 }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  // Answered here, not thrown: the error handler below would show the page again, as for a person's mistake.
  app.addHook("onRequest", async (request, reply) => {
    if (isCrossSite(request)) return sendError(reply, forbidden("This form is only accepted from this site's own pages"));
  });
  app.setErrorHandler((error, request, reply) => {
    const path = request.routeOptions.url ?? "";
    return KEPT_FIELDS[path]
      ? refusal(request, reply, path, toAppError(error, request))
      : sendError(reply, toAppError(error, request));
  });

  /** A refusal or a wait in the person's language, from the web app's strings. */
  async function refusalText(language: Language, error: AppError): Promise<string> {
    const details = (error.details ?? {}) as {
      text?: string;
      values?: Record<string, string | number>;
      retryAfterSeconds?: number;
    };
    const wait = details.retryAfterSeconds;
    if (typeof wait === "number" && wait > 0)
      return wait < 60
        ? pages.text(language, "common:errors.waitSeconds", { count: Math.ceil(wait) })
        : pages.text(language, "common:errors.waitMinutes", { count: Math.ceil(wait / 60) });
    if (details.text) {
      const values = { ...details.values };
      if (typeof values.label === "string") values.field = await pages.text(language, values.label);
      return pages.text(language, details.text, values);
    }
    const text = await pages.text(language, `common:errors.${error.code}`);
    return text.startsWith("common:") ? pages.text(language, "common:errors.unknown") : text;
  }

  /** The page again, with the reason and what was typed (not the password); JSON when the build has no such page. */
  async function refusal(request: FastifyRequest, reply: FastifyReply, path: string, error: AppError) {
    const language = languageOf(request);
    const form = (request.body ?? {}) as FormFields;
    const values: FormValues = {};
    for (const field of KEPT_FIELDS[path] ?? []) values[field] = CHECKBOXES.has(field) ? form[field] === "1" : form[field];
    const html = await pages.render(language, path, { kind: "error", text: await refusalText(language, error) }, values);
    if (html === null) return sendError(reply, error);
    return page(reply, error.status >= 500 ? error.status : 200, html);
  }

  const page = (reply: FastifyReply, status: number, html: string) =>
    reply.code(status).header("content-type", "text/html; charset=utf-8").header("cache-control", "no-store").send(html);

  /** Signed in: to the app, which takes the session from the handoff cookie once its scripts run. */
  const signedIn = (request: FastifyRequest, reply: FastifyReply, refreshToken: string, remember: boolean) => {
    setHandoff(request, reply, refreshToken, remember);
    return reply.code(303).header("cache-control", "no-store").redirect(HANDOFF_LANDING, 303);
  };

  const schema = (summary: string) => ({
    tags: ["forms"],
    summary,
    body: formBody,
    consumes: ["application/x-www-form-urlencoded"],
  });

  app.post(
    "/login",
    { schema: schema("The login screen's form without scripts: 303 to the app signed in, or the page again") },
    async (request, reply) => {
      const language = languageOf(request);
      const session = await signInByForm(app.deps, request.body, metaOf(request, language));
      return signedIn(request, reply, session.refresh_token, request.body.remember === "1");
    },
  );

  app.post(
    "/register",
    { schema: schema("The register screen's form without scripts: 303 to the app signed in, or the page again") },
    async (request, reply) => {
      const language = languageOf(request);
      const session = await registerByForm(app.deps, request.body, language, metaOf(request, language));
      return signedIn(request, reply, session.refresh_token, true);
    },
  );

  app.post(
    "/forgot-password",
    { schema: schema("The forgot-password form without scripts: the code sent, 303 to the code screen") },
    async (request, reply) => {
      const language = languageOf(request);
      const { user } = await sendResetCodeByForm(app.deps, request.body, language, metaOf(request, language));
      return reply
        .code(303)
        .header("cache-control", "no-store")
        .redirect(`/send-otp/${encodeURIComponent(user)}`, 303);
    },
  );

  app.post(
    "/contact",
    { schema: schema("The contact form without scripts: stored as POST /api/contactSubmission, then thanks") },
    async (request, reply) => {
      const language = languageOf(request);
      await contactByForm(app.deps, request.body, request.ip);
      const thanks = await pages.text(language, "info:contact.success");
      const html = await pages.render(language, "/contact", { kind: "success", text: thanks }, {});
      return html === null ? reply.code(201).send({ ok: true }) : page(reply, 200, html);
    },
  );

  app.post(
    HANDOFF_PATH,
    {
      // Whoever holds the HttpOnly cookie a sign-in on this origin set: the cookie is the proof, not a token.
      config: { access: "public" },
      schema: {
        tags: ["auth"],
        summary: "Trade the cookie a script-less sign-in set for its session (once; the refresh token rotates)",
        response: { 200: sessionHandoffSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const handoff = takeHandoff(request, reply);
      if (!handoff) throw unauthorized("No sign-in waits to be handed over");
      const session = await app.deps.auth.service.sessions.refresh(handoff.refreshToken, metaOf(request, languageOf(request)));
      return { ...session, remember: handoff.remember };
    },
  );
}
