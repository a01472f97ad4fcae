import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";

/**
 * Nothing a person types for signing in travels in an address: an address lands in the browser's history, in
 * proxies' and this server's request logs. A password in a query string is refused before any route reads it, and
 * the request log never shows the query of an auth route (where usernames, phones and codes go) nor of a refused one.
 */

/** Paths whose query strings the request log drops: every way in to an account. */
const AUTH_PATHS = [
  /^\/auth\/v1\//,
  /^\/api\/(sign-up|send-otp|verify-otp|reset-password|change-password|team\/(join|recover|reset-password))$/,
  /^\/(login|register|arabic-register|forgot-password|reset-password|send-otp\/[^/]*)$/,
];

/** A query key that names a password, in any case and spelling (`password`, `New_Password`, `currentPassword`). */
const isPasswordKey = (key: string) => key.toLowerCase().includes("password");

/** Whether the query string of `url` carries a password-like field. */
export function queryHasPassword(url: string): boolean {
  const at = url.indexOf("?");
  if (at < 0) return false;
  for (const key of new URLSearchParams(url.slice(at + 1)).keys()) if (isPasswordKey(key)) return true;
  return false;
}

/** The URL as the request log may show it: without its query on auth routes and whenever it carries a password. */
export function loggableUrl(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const path = url.slice(0, at);
  return AUTH_PATHS.some((p) => p.test(path)) || queryHasPassword(url) ? path : url;
}

/** Pino's request serializer: Fastify's own fields, with the URL made loggable. */
export function requestSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** A password in the query string: 400 before anything reads it (also answered in /auth/v1's Supabase shape). */
export function installSecretQueryRefusal(app: FastifyInstance) {
  app.addHook("onRequest", (request, _reply, done) => {
    if (!queryHasPassword(request.url)) return done();
    const error = new AppError("bad_request", "A password never goes in the address: send it in the request's body");
    done(Object.assign(error, { statusCode: 400 }));
  });
}
