import type { DB } from "../../db/database.ts";
import {
  listOutboxMessages,
  type MessageProvider,
  MessageSendError,
  type OutboxListOptions,
  type OutboxRow,
  type OutgoingMessage,
  recordOutboxMessage,
  type SentMessage,
} from "./sms-provider.ts";

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  from: string;
  whatsappFrom: string | undefined;
  baseUrl: string;
  /** Injected in tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

/**
 * Twilio's Messages API (or anything speaking it): form-encoded POST with basic auth. Each send is also
 * logged in the outbox with its status and the provider's id, the code itself masked.
 */
export class TwilioProvider implements MessageProvider {
  readonly name = "twilio";
  readonly #db: DB;
  readonly #options: TwilioOptions;

  constructor(db: DB, options: TwilioOptions) {
    this.#db = db;
    this.#options = options;
  }

  list(options: OutboxListOptions): Promise<OutboxRow[]> {
    return listOutboxMessages(this.#db, options);
  }

  async send(message: OutgoingMessage): Promise<SentMessage> {
    const { accountSid, authToken, from, whatsappFrom, baseUrl } = this.#options;
    const whatsapp = message.channel === "whatsapp";
    const form = new URLSearchParams({
      To: whatsapp ? `whatsapp:${message.to}` : message.to,
      From: whatsapp ? `whatsapp:${whatsappFrom ?? from}` : from,
      Body: message.body,
    });
    const url = `${baseUrl.replace(/\/$/, "")}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    const masked = message.body.replace(/\d{4,}/g, (d) => "•".repeat(d.length));
    let sid: string | undefined;
    let failure: string | undefined;
    try {
      const response = await (this.#options.fetch ?? fetch)(url, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: form,
        signal: AbortSignal.timeout(10_000),
      });
      const payload = (await response.json().catch(() => ({}))) as { sid?: string; message?: string };
      if (response.ok && payload.sid) sid = payload.sid;
      else failure = payload.message ?? `HTTP ${response.status}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    const id = await recordOutboxMessage(this.#db, message, {
      provider: this.name,
      status: failure ? "failed" : "sent",
      body: masked,
      ...(sid ? { providerMessageId: sid } : {}),
      ...(failure ? { error: failure } : {}),
    });
    if (failure) throw new MessageSendError(failure);
    return { id };
  }
}
