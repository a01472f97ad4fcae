import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: `reminder_inbound_messages`, every provider message id (Twilio's `MessageSid`) the inbound webhook has
 * handled, with when it arrived. Twilio signs the URL and the parameters but no time, so a captured STOP, signature
 * and all, could be posted again after the person turned reminders back on; a message id seen before changes
 * nothing. Kept (one short row per inbound message): dropping old ids would let their STOPs be replayed.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("reminder_inbound_messages")
    .addColumn("message_sid", "text", (c) => c.primaryKey())
    .addColumn("received_at", "text", (c) => c.notNull())
    .execute();
}
