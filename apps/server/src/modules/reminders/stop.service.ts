import { createHmac, timingSafeEqual } from "node:crypto";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { normalizePhone } from "../auth/phone.ts";
import * as repo from "./reminders.repository.ts";
import { publicUrlOf } from "./scheduler.ts";
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

/** Whether a reply means "stop" ("STOP", "توقف.", …), whoever sent it. */
export function isStopWord(body: string): boolean {
  return STOP_WORDS.has(
    body
      .trim()
      .toLowerCase()
      .replace(/[.!؟?]+$/u, ""),
  );
}

/** Reminders off and the person's pending ones stopped, in the caller's transaction. */
async function turnOffIn(trx: Parameters<typeof repo.turnOffReminders>[0], userId: string, via: StopVia, at: string) {
  await repo.turnOffReminders(trx, userId, via, at);
  await repo.stopPendingJobs(trx, userId, at);
}

export async function turnOff(deps: Pick<AppDeps, "db">, userId: string, via: StopVia, now = new Date()): Promise<void> {
  await deps.db.transaction().execute((trx) => turnOffIn(trx, userId, via, now.toISOString()));
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

/**
 * The check every Twilio-style webhook passes (STOP here, the families' WhatsApp in modules/messages): Twilio's
 * signature over PUBLIC_URL + the path and the parameters, and a `MessageSid`, without which a signed request could
 * be acted on again and again. Returns the MessageSid; throws 403 `forbidden` or 400 `bad_request`.
 */
export function checkTwilioWebhook(
  config: AppDeps["config"],
  request: { url: string; headers: Record<string, string | string[] | undefined>; body: Record<string, string> },
): string {
  const signature = request.headers["x-twilio-signature"];
  const url = `${publicUrlOf(config)}${request.url}`;
  const authToken = config.sms.provider === "twilio" ? config.sms.authToken : "";
  if (typeof signature !== "string" || !authToken || !twilioSignatureOk(authToken, url, request.body, signature))
    throw new AppError("forbidden", "The webhook signature does not match");
  const messageSid = request.body.MessageSid;
  if (!messageSid) throw new AppError("bad_request", "MessageSid is required", { field: "MessageSid" });
  return messageSid;
}

export interface InboundMessage {
  from: string;
  body: string;
  /** The provider's id for the message (Twilio's `MessageSid`); each id is acted on once. */
  messageSid?: string | undefined;
}

/**
 * An inbound SMS/WhatsApp message: "STOP" (or its Arabic) from a known number turns that person's reminders off.
 * A message id handled before changes nothing (the provider's retry, or a captured request posted again after the
 * person turned reminders back on). The id is recorded in the same transaction as the stop, so a stop that failed
 * can still be retried. Returns whether reminders were turned off.
 */
export async function handleInbound(deps: Deps, message: InboundMessage, now = new Date()): Promise<boolean> {
  const phone = isStopWord(message.body) ? normalizePhone(message.from.replace(/^whatsapp:/, "")) : null;
  const userId = phone ? await repo.findUserIdByPhone(deps.db, phone) : undefined;
  const at = now.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    if (message.messageSid && !(await repo.recordInboundMessage(trx, message.messageSid, at))) return false;
    if (!userId) return false;
    await turnOffIn(trx, userId, "reply", at);
    return true;
  });
}
