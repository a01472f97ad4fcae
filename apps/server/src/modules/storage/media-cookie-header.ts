import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { MEDIA_COOKIE, mediaCookieFor } from "./media-cookies.ts";
import { objectOf } from "./story-media.ts";

/**
 * Sets the cookie that opens a story video's stream (media-cookies.ts) on an answer that hands out the video: HttpOnly
 * (no script needs it), SameSite=Lax (sent with the page's own requests, never with another site's posts), Secure
 * when the site is served over https, and only sent under the video's own files.
 */
export function grantStream(request: FastifyRequest, reply: FastifyReply, videoKey: string): void {
  const cookie = mediaCookieFor(request.server.deps, videoKey);
  const publicUrl = request.server.deps.config.publicUrl;
  const secure = request.protocol === "https" || Boolean(publicUrl?.startsWith("https:"));
  const flags = [`Path=${cookie.path}`, `Max-Age=${cookie.maxAge}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])];
  reply.header("set-cookie", `${MEDIA_COOKIE}=${cookie.value}; ${flags.join("; ")}`);
}

/** The same for a video handed out by its signed link (a story's answer); nothing for a public or outside one. */
export function grantStreamOfLink(request: FastifyRequest, reply: FastifyReply, link: string | null | undefined): void {
  const object = objectOf(link);
  if (object?.bucket === STORY_MEDIA_BUCKET) grantStream(request, reply, object.key);
}
