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
 * What a signature is for. Each purpose has its own key derived from the server's secret, so the key of story media
 * cookies can be handed to a CDN's edge to check them there without it being able to sign a link to a recording.
 */
export type SigningPurpose = "signed-links" | "media-cookies";

/**
 * The one signing mechanism for private media (recordings, story media, their cookies): an HMAC, keyed from the
 * server's secret for one purpose only, over what the signature opens and when it stops working.
 */
const purposeKeys = new WeakMap<Buffer, Map<SigningPurpose, Buffer>>();

/** The key one purpose signs with (`npm run keys:media-cookies` prints that of the cookies for a CDN's edge). */
export function purposeKey(secret: Buffer, purpose: SigningPurpose): Buffer {
  let keys = purposeKeys.get(secret);
  if (!keys) {
    keys = new Map();
    purposeKeys.set(secret, keys);
  }
  let key = keys.get(purpose);
  if (!key) {
    key = createHmac("sha256", secret).update(purpose).digest();
    keys.set(purpose, key);
  }
  return key;
}

function signature(deps: LinkDeps, subject: string, expires: number, purpose: SigningPurpose): string {
  return createHmac("sha256", purposeKey(deps.auth.keys.hmacSecret, purpose))
    .update(`${subject}\n${expires}`)
    .digest("base64url");
}

export interface LinkSignature {
  expires: number;
  signature: string;
}

/** When a link made at `now` stops working (the same for every link made in one 10-minute step). */
export function linkExpiry(now = Date.now()): number {
  return Math.ceil(now / 1000 / EXPIRY_STEP_SECONDS) * EXPIRY_STEP_SECONDS + RECORDING_LINK_TTL_SECONDS;
}

export function signLink(
  deps: LinkDeps,
  subject: string,
  now = Date.now(),
  purpose: SigningPurpose = "signed-links",
): LinkSignature {
  const expires = linkExpiry(now);
  return { expires, signature: signature(deps, subject, expires, purpose) };
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
  purpose: SigningPurpose = "signed-links",
): boolean {
  if (!expires || !given || expires < now / 1000) return false;
  const expected = Buffer.from(signature(deps, subject, expires, purpose));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
