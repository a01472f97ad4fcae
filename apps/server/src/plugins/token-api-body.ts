import { errorCodes, type FastifyInstance } from "fastify";

/**
 * Spec section 7: token API calls are POST "JSON or multipart". A call that needs no fields must work
 * however its client sends nothing: no body, an empty JSON body, or a multipart body whose parts the
 * route does not read. All three reach the route as `{}`.
 */
export function installTokenApiBody(app: FastifyInstance) {
  // Fastify's JSON parser refuses an empty body outright; an empty body is "no fields", not an error.
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (typeof body === "string" && body.trim() === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, String(body), done);
  });

  // A multipart body on a token API route that reads no parts (POST /api/profile): drained, and the route sees no
  // fields. Routes that read parts register @fastify/multipart in their own scope (plugins/multipart.ts), which
  // takes this parser's place there.
  app.addContentTypeParser("multipart/form-data", (request, payload, done) => {
    if (!request.routeOptions.config?.envelope) {
      // What Fastify answers where no parser exists, so each error handler keeps its shape (Supabase's under /auth/v1).
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE("multipart/form-data"));
      return;
    }
    payload.on("error", done);
    payload.on("end", () => done(null, undefined));
    payload.resume();
  });

  app.addHook("preValidation", (request, _reply, done) => {
    if (request.routeOptions.config?.envelope && (request.body === undefined || request.body === null)) request.body = {};
    done();
  });
}
