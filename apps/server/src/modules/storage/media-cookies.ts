import { STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { derivedPrefix } from "./derived-files.ts";
import { isValidLink, signLink } from "./signed-links.ts";

type CookieDeps = Pick<AppDeps, "auth">;

/**
 * Issue 41: a story video's stream (playlists, segments, poster, captions) lives at one address for every viewer, so
 * a CDN can cache it by path alone. Who may fetch it is told by a cookie outside that address, as CDNs document for
 * HLS: scoped (Path) to the video's files, valid about an hour, its value an HMAC over that path and its expiry made
 * by the one signing mechanism (`signed-links.ts`, its own key: `media-cookies`). It is handed out only with a stream
 * the person may watch, so a locked story's files stay refused, whatever other story's cookie comes with them.
 */
export const MEDIA_COOKIE = "hikaya-media";

/** Where streams are served under a cookie (media.routes.ts); `sign` and `public` name the other two access rules. */
export const COOKIE_MEDIA_ROOT = `/storage/v1/object/cookie/${STORY_MEDIA_BUCKET}/`;

/** The folder every file made from the video `videoKey` is served under, and its cookie's Path. */
export const cookieScopeOf = (videoKey: string) => `${COOKIE_MEDIA_ROOT}${derivedPrefix(videoKey)}`;

export interface MediaCookie {
  path: string;
  value: string;
  /** Seconds the cookie lives: until the signature expires. */
  maxAge: number;
}

/** The cookie that opens the files of `videoKey`: the same for everyone within one 10-minute step. */
export function mediaCookieFor(deps: CookieDeps, videoKey: string, now = Date.now()): MediaCookie {
  const path = cookieScopeOf(videoKey);
  const { expires, signature } = signLink(deps, path, now, "media-cookies");
  return { path, value: `${expires}.${signature}`, maxAge: Math.max(0, expires - Math.floor(now / 1000)) };
}

/**
 * Whether a Cookie header opens the files of `videoKey`. A browser sends only the cookie whose Path covers the file
 * asked for, but a header may carry several of the name (written by hand, or nested paths): any valid one will do.
 */
export function cookieOpens(deps: CookieDeps, videoKey: string, header: string | undefined, now = Date.now()): boolean {
  if (!header) return false;
  const path = cookieScopeOf(videoKey);
  for (const part of header.split(";")) {
    const [name, value] = part.trim().split("=", 2);
    if (name !== MEDIA_COOKIE || !value) continue;
    const [expires, signature] = value.split(".", 2);
    if (isValidLink(deps, path, Number(expires), signature, now, "media-cookies")) return true;
  }
  return false;
}
