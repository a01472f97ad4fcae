import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: the families' own WhatsApp (issue 40).
 * - `messages.channel`: how a message came or went ("app" | "whatsapp"), for the console's WhatsApp mark.
 * - `messages.provider_message_id`: the provider's id of an inbound WhatsApp message (Twilio's `MessageSid`), unique,
 *   so the provider's retry (or a replayed request) stores one message. Null for everything else (nulls never clash).
 * - `conversations.whatsapp_inbound_at`: when the family last wrote by WhatsApp; WhatsApp lets a business answer
 *   freely for 24 hours after that, and only with a template outside that window.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("messages")
    .addColumn("channel", "text", (c) => c.notNull().defaultTo("app"))
    .execute();
  await db.schema.alterTable("messages").addColumn("provider_message_id", "text").execute();
  await db.schema.createIndex("messages_provider_message_id_key").on("messages").column("provider_message_id").unique().execute();
  await db.schema.alterTable("conversations").addColumn("whatsapp_inbound_at", "text").execute();
}
