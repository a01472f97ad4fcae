import type { FastifyInstance } from "fastify";

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

  app.addHook("preValidation", (request, _reply, done) => {
    if (request.routeOptions.config?.envelope && (request.body === undefined || request.body === null)) request.body = {};
    done();
  });
}
