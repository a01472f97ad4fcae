import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { type ChatMessage, MESSAGE_TEXT_MAX_LENGTH, VOICE_NOTE_MAX_BYTES } from "@hikaya/contracts";
import { type DialectName, lockConversationMessages } from "../../db/dialect.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { normalizePhone } from "../auth/phone.ts";
import { publicUrlOf } from "../reminders/scheduler.ts";
import * as repo from "./messages.repository.ts";
import type { MessagesService } from "./messages.service.ts";
import { VOICE_BUCKET } from "./voice-notes.ts";
import * as whatsappRepo from "./whatsapp.repository.ts";

/** WhatsApp lets a business answer freely for 24 hours after the person last wrote; after that, templates only. */
export const WHATSAPP_WINDOW_MS = 24 * 3600_000;

/** Twilio serves media from its API host, which redirects to its CDN; nothing else is fetched. */
const MEDIA_CDN_SUFFIX = ".twiliocdn.com";
const MAX_MEDIA_REDIRECTS = 2;

/** Outside the window, what the family is sent instead of the reply: that there is one, and where. */
const TEMPLATES = {
  en: "The Hikaya team has replied to your message. Read it here: {link}",
  ar: "ردّ فريق حكاية على رسالتك. اقرأ الردّ هنا: {link}",
} as const;
const VOICE_REPLY = {
  en: "The Hikaya team sent you a voice message. Listen to it here: {link}",
  ar: "أرسل إليك فريق حكاية رسالة صوتية. استمع إليها هنا: {link}",
} as const;

export interface InboundWhatsApp {
  /** Twilio's `From`: `whatsapp:+9627…`. */
  from: string;
  body: string;
  messageSid: string;
  media: { url: string; contentType: string } | null;
}

export type InboundOutcome = "stored" | "duplicate" | "unknown_sender" | "nothing_to_store";

/** How a facilitator's reply reaches a family that writes by WhatsApp. */
export type ReplyRoute = { via: "whatsapp" | "template"; phone: string; language: "en" | "ar" } | null;

type Deps = Pick<AppDeps, "db" | "config" | "messages" | "fileEvents" | "legacyMessageOrder">;

/**
 * The families' own WhatsApp (issue 40): an inbound WhatsApp message lands in the sender's conversation as if sent
 * from the app, once per provider id; a facilitator's reply goes back by WhatsApp inside the 24-hour window, and as
 * a template linking to the chat outside it. `now` is injected: tests move the window by hand.
 */
export class WhatsAppService {
  readonly #deps: Deps;
  readonly #dialect: DialectName;
  readonly #messages: MessagesService;
  readonly #now: () => Date;

  constructor(deps: Deps, dialect: DialectName, messages: MessagesService, now: () => Date = () => new Date()) {
    this.#deps = deps;
    this.#dialect = dialect;
    this.#messages = messages;
    this.#now = now;
  }

  /** Whether the provider is set up for WhatsApp at all (else the webhook is not there). */
  get enabled(): boolean {
    const sms = this.#deps.config.sms;
    return sms.provider === "twilio" && Boolean(sms.whatsappFrom);
  }

  async receive(message: InboundWhatsApp): Promise<InboundOutcome> {
    const { db } = this.#deps;
    const phone = normalizePhone(message.from.replace(/^whatsapp:/, ""));
    const account = phone ? await whatsappRepo.findAccountByPhone(db, phone) : undefined;
    // An unknown number is stored nowhere and answered by nothing; the route logs it for operators.
    if (!account) return "unknown_sender";
    // The provider's retry: answered without fetching its media again.
    if (await whatsappRepo.providerMessageExists(db, message.messageSid)) return "duplicate";
    const media = message.media?.contentType.startsWith("audio/") ? message.media : null;
    const text = message.body.trim();
    if (!media && !text) return "nothing_to_store";
    if (!media && text.length > MESSAGE_TEXT_MAX_LENGTH)
      throw new AppError("validation_failed", `Messages are limited to ${MESSAGE_TEXT_MAX_LENGTH} characters`);
    const voice = media ? await this.#messages.storeVoiceNote(account.id, await this.#fetchMedia(media.url)) : null;
    const at = this.#now().toISOString();
    const row = await db.transaction().execute(async (trx) => {
      await lockConversationMessages(trx, this.#dialect, account.id, this.#deps.legacyMessageOrder);
      const inserted = await whatsappRepo.insertInboundMessage(trx, {
        user_id: account.id,
        sender_id: account.id,
        sender_role: "user",
        message_type: voice ? "audio" : "text",
        body: voice ? voice.key : text,
        duration_seconds: null,
        client_id: null,
        created_at: at,
        channel: "whatsapp",
        provider_message_id: message.messageSid,
      });
      if (inserted) {
        await repo.touchConversation(trx, inserted);
        await whatsappRepo.setWhatsAppInboundAt(trx, account.id, at);
      }
      return inserted;
    });
    if (!row) {
      // The same id arrived twice at once: the other request stored it.
      if (voice) await this.#messages.discardVoiceNote(voice.key);
      return "duplicate";
    }
    if (voice)
      await this.#deps.fileEvents
        .fileStored({ bucket: VOICE_BUCKET, key: voice.key, contentType: voice.contentType, use: { kind: "voice-note" } })
        .catch(() => undefined);
    await this.#messages.announceStored(row);
    return "stored";
  }

  /** Until when a reply goes out by WhatsApp; null when the window is closed or the family never wrote there. */
  async windowUntil(userId: string): Promise<string | null> {
    const contact = await whatsappRepo.findWhatsAppContact(this.#deps.db, userId);
    const until = this.#until(contact?.inboundAt ?? null);
    return until && until > this.#now().getTime() ? new Date(until).toISOString() : null;
  }

  /** How a reply now reaches the family: null for a family that never wrote by WhatsApp (the app alone). */
  async replyRoute(userId: string): Promise<ReplyRoute> {
    if (!this.enabled) return null;
    const contact = await whatsappRepo.findWhatsAppContact(this.#deps.db, userId);
    const until = this.#until(contact?.inboundAt ?? null);
    if (!contact?.phone || until === null) return null;
    const language = contact.language === "ar" ? "ar" : "en";
    return { via: until > this.#now().getTime() ? "whatsapp" : "template", phone: contact.phone, language };
  }

  /** Sends a stored reply on by WhatsApp: the text itself inside the window, a link otherwise (or for a voice note). */
  async deliverReply(route: NonNullable<ReplyRoute>, message: ChatMessage): Promise<void> {
    const link = `${publicUrlOf(this.#deps.config)}/chats`;
    const body =
      route.via === "template"
        ? TEMPLATES[route.language].replace("{link}", link)
        : message.messageType === "audio"
          ? VOICE_REPLY[route.language].replace("{link}", link)
          : message.message;
    await this.#deps.messages.send({ channel: "whatsapp", to: route.phone, body, purpose: `chat-reply:${message._id}` });
  }

  #until(inboundAt: string | null): number | null {
    return inboundAt ? Date.parse(inboundAt) + WHATSAPP_WINDOW_MS : null;
  }

  /**
   * The voice note's bytes from the provider, with the account's credentials: only from TWILIO_BASE_URL's origin,
   * whose redirect may lead to the provider's CDN over https (credentials not sent there). Any other address is
   * refused, so a forged or misconfigured webhook cannot make the server fetch from inside the network.
   */
  async #fetchMedia(url: string): Promise<Readable> {
    const sms = this.#deps.config.sms;
    if (sms.provider !== "twilio") throw new AppError("not_found", "WhatsApp is not configured");
    const { accountSid, authToken, baseUrl } = sms;
    const apiOrigin = new URL(baseUrl).origin;
    let target = parseUrl(url);
    if (target?.origin !== apiOrigin)
      throw new AppError("bad_request", "The media is not on the provider's host", { field: "MediaUrl0" });
    for (let hop = 0; ; hop++) {
      const withAuth = target.origin === apiOrigin;
      const response = await fetch(target, {
        redirect: "manual",
        headers: withAuth ? { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}` } : {},
        signal: AbortSignal.timeout(30_000),
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location && hop < MAX_MEDIA_REDIRECTS) {
        await response.body?.cancel();
        const next = parseUrl(location, target);
        const allowed =
          next && (next.origin === apiOrigin || (next.protocol === "https:" && next.hostname.endsWith(MEDIA_CDN_SUFFIX)));
        if (!next || !allowed)
          throw new AppError("bad_request", "The media redirects off the provider's hosts", { field: "MediaUrl0" });
        target = next;
        continue;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new AppError("bad_request", `The provider did not serve the media (HTTP ${response.status})`, {
          field: "MediaUrl0",
        });
      }
      const declared = Number(response.headers.get("content-length") ?? "0");
      if (declared > VOICE_NOTE_MAX_BYTES) {
        await response.body.cancel();
        throw new AppError(
          "payload_too_large",
          `Voice messages are limited to ${Math.round(VOICE_NOTE_MAX_BYTES / 1024 / 1024)} MB`,
        );
      }
      return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    }
  }
}

function parseUrl(value: string, base?: URL): URL | null {
  try {
    const url = new URL(value, base);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}
