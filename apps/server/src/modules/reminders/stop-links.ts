import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Stop links: `<payload>.<signature>`, the payload naming the person and the reminder it came with, the
 * signature an HMAC under a key derived for this one purpose (a token from elsewhere never verifies
 * here, and this one verifies nowhere else). Used once: the reminder id is recorded when it is used.
 */
const PURPOSE = "hikaya/reminders-stop/v1";

export interface StopClaims {
  userId: string;
  /** The reminder the link came with: the link's single-use id. */
  tokenId: string;
  language: "en" | "ar";
}

const keyOf = (secret: Buffer) => createHmac("sha256", secret).update(PURPOSE).digest();
const sign = (secret: Buffer, payload: string) => createHmac("sha256", keyOf(secret)).update(payload).digest("base64url");

export function createStopToken(secret: Buffer, claims: StopClaims): string {
  const payload = Buffer.from(JSON.stringify({ p: PURPOSE, u: claims.userId, j: claims.tokenId, l: claims.language })).toString(
    "base64url",
  );
  return `${payload}.${sign(secret, payload)}`;
}

/** The claims of an untampered stop token, else null. */
export function readStopToken(secret: Buffer, token: string): StopClaims | null {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    if (value.p !== PURPOSE || typeof value.u !== "string" || typeof value.j !== "string") return null;
    return { userId: value.u, tokenId: value.j, language: value.l === "ar" ? "ar" : "en" };
  } catch {
    return null;
  }
}
