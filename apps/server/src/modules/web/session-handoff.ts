import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * A sign-in made by a form posted without scripts is handed to the app through a cookie: HttpOnly (no script reads
 * it), SameSite=Strict, only sent to the one route that takes it, for two minutes, and spent on first use (that
 * route clears it and rotates the refresh token inside). The app keeps its session in storage, not in cookies;
 * once its scripts run it trades the cookie for that session (web `lib/session-handoff.ts`). Nothing of it travels
 * in an address.
 */
export const HANDOFF_COOKIE = "hikaya-handoff";
export const HANDOFF_PATH = "/api/session-handoff";
export const HANDOFF_SECONDS = 120;
/** Where a script-less sign-in lands: the fragment tells the app a handoff waits (it is never sent to a server). */
export const HANDOFF_LANDING = "/#signed-in";

function secure(request: FastifyRequest): boolean {
  const publicUrl = request.server.deps.config.publicUrl;
  return request.protocol === "https" || Boolean(publicUrl?.startsWith("https:"));
}

function cookie(request: FastifyRequest, value: string, maxAge: number): string {
  const flags = [
    `Path=${HANDOFF_PATH}`,
    `Max-Age=${maxAge}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(secure(request) ? ["Secure"] : []),
  ];
  return `${HANDOFF_COOKIE}=${value}; ${flags.join("; ")}`;
}

/** Sets the handoff for a new session: its refresh token and the Remember Me choice. */
export function setHandoff(request: FastifyRequest, reply: FastifyReply, refreshToken: string, remember: boolean) {
  reply.header("set-cookie", cookie(request, `${remember ? "1" : "0"}.${encodeURIComponent(refreshToken)}`, HANDOFF_SECONDS));
}

/** The handoff the request carries, if any; the answer clears it whatever happens next. */
export function takeHandoff(request: FastifyRequest, reply: FastifyReply): { refreshToken: string; remember: boolean } | null {
  reply.header("set-cookie", cookie(request, "", 0));
  const value = new RegExp(`(?:^|;\\s*)${HANDOFF_COOKIE}=([01])\\.([^;]+)`).exec(request.headers.cookie ?? "");
  if (!value?.[2]) return null;
  return { remember: value[1] === "1", refreshToken: decodeURIComponent(value[2]) };
}
