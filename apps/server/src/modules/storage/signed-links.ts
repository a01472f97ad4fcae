import { createHmac, timingSafeEqual } from "node:crypto";
import { RECORDING_LINK_TTL_SECONDS } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";

type LinkDeps = Pick<AppDeps, "auth">;

/**
 * Links are handed out rounded up to this many seconds, so the same media gets the same link for a while: the
 * story list can be cached and the browser's cache keeps working, and a link still lives at least the TTL.
 */
const EXPIRY_STEP_SECONDS = 600;

/**
 * The one signing mechanism for private media (recordings, story media): an HMAC, keyed from the server's
 * secret for this purpose only, over what the link opens and when it stops working.
 */
const linkKeys = new WeakMap<Buffer, Buffer>();

function signature(deps: LinkDeps, subject: string, expires: number): string {
  const secret = deps.auth.keys.hmacSecret;
  let key = linkKeys.get(secret);
  if (!key) {
    key = createHmac("sha256", secret).update("signed-links").digest();
    linkKeys.set(secret, key);
  }
  return createHmac("sha256", key).update(`${subject}\n${expires}`).digest("base64url");
}

export interface LinkSignature {
  expires: number;
  signature: string;
}

/** When a link made at `now` stops working (the same for every link made in one 10-minute step). */
export function linkExpiry(now = Date.now()): number {
  return Math.ceil(now / 1000 / EXPIRY_STEP_SECONDS) * EXPIRY_STEP_SECONDS + RECORDING_LINK_TTL_SECONDS;
}

export function signLink(deps: LinkDeps, subject: string, now = Date.now()): LinkSignature {
  const expires = linkExpiry(now);
  return { expires, signature: signature(deps, subject, expires) };
}

/** `?expires=…&signature=…` for a link to `subject`. */
export function signedQuery(deps: LinkDeps, subject: string, now = Date.now()): string {
  const { expires, signature } = signLink(deps, subject, now);
  return `expires=${expires}&signature=${signature}`;
}

export function isValidLink(
  deps: LinkDeps,
  subject: string,
  expires: number | undefined,
  given: string | undefined,
  now = Date.now(),
): boolean {
  if (!expires || !given || expires < now / 1000) return false;
  const expected = Buffer.from(signature(deps, subject, expires));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
