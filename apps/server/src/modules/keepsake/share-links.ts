import { createHash, createHmac, randomBytes } from "node:crypto";
import type { AppDeps } from "../../deps.ts";

/**
 * Share-link tokens. Each link has a random id (128 bits); its token is an HMAC of that id under a key kept for
 * this purpose only (the secret store's `keepsake-links`, never rotated with the signing keys, so a printed book
 * keeps working). The database keeps the id and a SHA-256 of the token, never the token: a copy of the database
 * opens nothing, and the family's page can still draw the same QR code every time they print.
 */
const SECRET_NAME = "keepsake-links";
const keys = new WeakMap<AppDeps["secrets"], Promise<Buffer>>();

function keyOf(secrets: AppDeps["secrets"]): Promise<Buffer> {
  let key = keys.get(secrets);
  if (!key) {
    key = secrets.getOrCreate(SECRET_NAME, () => randomBytes(32).toString("base64url")).then((v) => Buffer.from(v, "base64url"));
    keys.set(secrets, key);
  }
  return key;
}

export const newLinkId = () => randomBytes(16).toString("base64url");

export async function tokenOf(deps: Pick<AppDeps, "secrets">, linkId: string): Promise<string> {
  return createHmac("sha256", await keyOf(deps.secrets))
    .update(`keepsake-link\n${linkId}`)
    .digest("base64url");
}

export const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Tokens are 43 base64url characters; anything else is refused before it reaches a query. */
export const isWellFormedToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/** Links are built from PUBLIC_URL, never from a request header (docs/runbook.md, "PUBLIC_URL"). */
export const linkUrl = (config: AppDeps["config"], token: string) =>
  `${config.publicUrl ?? `http://localhost:${config.port}`}/k/${token}`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** When a link shared at `now` stops working: never, or after a year or a month (calendar, in UTC). */
export function expiryOf(expiry: "never" | "year" | "month", now: Date): string | null {
  if (expiry === "never") return null;
  const end = new Date(now.getTime());
  if (expiry === "year") end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  // A 31st with no 31st next month rolls into the month after; a day's grace never hurts a relative.
  return new Date(Math.max(end.getTime(), now.getTime() + DAY_MS)).toISOString();
}
