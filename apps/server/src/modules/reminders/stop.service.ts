import { createHmac, timingSafeEqual } from "node:crypto";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { normalizePhone } from "../auth/phone.ts";
import * as repo from "./reminders.repository.ts";
import { readStopToken, type StopClaims } from "./stop-links.ts";

type Deps = Pick<AppDeps, "db" | "auth" | "config">;

/** How reminders were turned off, shown in Edit Profile and the console's person detail. */
export type StopVia = "link" | "reply" | "profile";

/** Words that mean "stop" in a reply, in both languages (the carriers' own English keywords among them). */
const STOP_WORDS = new Set([
  "stop",
  "stopall",
  "unsubscribe",
  "cancel",
  "end",
  "quit",
  "توقف",
  "أوقف",
  "اوقف",
  "إيقاف",
  "ايقاف",
  "الغاء",
  "إلغاء",
]);

export async function turnOff(deps: Pick<AppDeps, "db">, userId: string, via: StopVia, now = new Date()): Promise<void> {
  const at = now.toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await repo.turnOffReminders(trx, userId, via, at);
    await repo.stopPendingJobs(trx, userId, at);
  });
}

/** Verifies a stop link without using it (the page that asks "turn reminders off?"). */
export function checkStopToken(deps: Deps, token: string): StopClaims {
  const claims = readStopToken(deps.auth.keys.hmacSecret, token);
  if (!claims) throw new AppError("bad_request", "This stop link is not valid", { field: "token", reason: "invalid_stop_link" });
  return claims;
}

/** Uses a stop link: once only; a second use answers a conflict (reminders are already off). */
export async function useStopLink(deps: Deps, token: string, now = new Date()): Promise<StopClaims> {
  const claims = checkStopToken(deps, token);
  if (!(await repo.useStopToken(deps.db, claims.tokenId, claims.userId, now.toISOString())))
    throw new AppError("conflict", "This stop link was already used; reminders are off", { reason: "stop_link_used" });
  await turnOff(deps, claims.userId, "link", now);
  return claims;
}

/**
 * Twilio's webhook signature: base64 HMAC-SHA1, under the auth token, of the full URL followed by each
 * POST parameter's name and value in name order.
 */
export function twilioSignatureOk(authToken: string, url: string, params: Record<string, string>, signature: string): boolean {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join("");
  const expected = Buffer.from(createHmac("sha1", authToken).update(data).digest("base64"));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** An inbound SMS/WhatsApp message: "STOP" (or its Arabic) from a known number turns that person's reminders off. */
export async function handleInbound(deps: Deps, from: string, body: string, now = new Date()): Promise<boolean> {
  const word = body
    .trim()
    .toLowerCase()
    .replace(/[.!؟?]+$/u, "");
  if (!STOP_WORDS.has(word)) return false;
  const phone = normalizePhone(from.replace(/^whatsapp:/, ""));
  const userId = phone ? await repo.findUserIdByPhone(deps.db, phone) : undefined;
  if (!userId) return false;
  await turnOff(deps, userId, "reply", now);
  return true;
}
