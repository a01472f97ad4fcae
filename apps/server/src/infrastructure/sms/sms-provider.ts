import { randomUUID } from "node:crypto";
import type { DB } from "../../db/database.ts";
import { likeContains } from "../../db/dialect.ts";

/** One text message to a person: an SMS, a WhatsApp message, or an e-mail (e-mail always goes to the outbox). */
export interface OutgoingMessage {
  channel: "sms" | "whatsapp" | "email";
  /** E.164 phone number (with "+") or e-mail address. */
  to: string;
  body: string;
  /** What the message is for (otp, recovery, reauthentication…), for the admins reading the outbox. */
  purpose?: string;
}

export interface SentMessage {
  /** Our outbox id; also Supabase's `message_id`. */
  id: string;
}

/** Delivers messages. The default keeps them in the `sms_outbox` table; a real provider sends them. */
export interface MessageProvider {
  readonly name: string;
  send(message: OutgoingMessage): Promise<SentMessage>;
  /** What was sent (every provider records each message in the outbox table), newest first. */
  list(options: OutboxListOptions): Promise<OutboxRow[]>;
}

export class MessageSendError extends Error {}

export interface OutboxListOptions {
  limit: number;
  /** Exactly this phone number or e-mail address. */
  recipient?: string;
  /** Recipient or text contains this (wildcards literal; see db/paging.ts). */
  q?: string;
  /** Only messages strictly older than this (created_at, id) key: the console's next page. */
  after?: readonly [string, string];
}

export interface OutboxRow {
  id: string;
  channel: string;
  recipient: string;
  body: string;
  purpose: string | null;
  provider: string;
  status: string;
  providerMessageId: string | null;
  error: string | null;
  createdAt: string;
}

export async function recordOutboxMessage(
  db: DB,
  message: OutgoingMessage,
  delivery: { provider: string; status: "stored" | "sent" | "failed"; providerMessageId?: string; error?: string; body?: string },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto("sms_outbox")
    .values({
      id,
      channel: message.channel,
      recipient: message.to,
      body: delivery.body ?? message.body,
      purpose: message.purpose ?? null,
      provider: delivery.provider,
      status: delivery.status,
      provider_message_id: delivery.providerMessageId ?? null,
      error: delivery.error ?? null,
      created_at: new Date().toISOString(),
    })
    .execute();
  return id;
}

/** Newest first (id breaks ties, so keyset pages neither skip nor repeat a message). */
export async function listOutboxMessages(db: DB, options: OutboxListOptions): Promise<OutboxRow[]> {
  let query = db.selectFrom("sms_outbox").selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit);
  if (options.recipient) query = query.where("recipient", "=", options.recipient);
  const { after, q } = options;
  if (after)
    query = query.where((eb) =>
      eb.or([eb("created_at", "<", after[0]), eb.and([eb("created_at", "=", after[0]), eb("id", "<", after[1])])]),
    );
  if (q) query = query.where((eb) => eb.or([likeContains("recipient", q), likeContains("body", q)]));
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    body: r.body,
    purpose: r.purpose,
    provider: r.provider,
    status: r.status,
    providerMessageId: r.provider_message_id,
    error: r.error,
    createdAt: r.created_at,
  }));
}
