import type { Insertable, Kysely, Transaction } from "kysely";
import type { DB } from "../../db/database.ts";
import type { Database, MessagesTable } from "../../db/schema.ts";
import type { MessageRow } from "./messages.repository.ts";

/** The queries of the families' own WhatsApp (whatsapp.service.ts). */
type Db = DB | Kysely<Database> | Transaction<Database>;

/** The live account holding this E.164 number, with the language its family uses the app in. */
export async function findAccountByPhone(db: Db, e164: string): Promise<{ id: string; language: string | null } | undefined> {
  return db
    .selectFrom("users")
    .leftJoin("profiles", "profiles.user_id", "users.id")
    .select(["users.id as id", "profiles.language as language"])
    .where("users.phone", "=", e164)
    .where("users.deleted_at", "is", null)
    .executeTakeFirst();
}

export async function providerMessageExists(db: Db, providerMessageId: string): Promise<boolean> {
  const row = await db
    .selectFrom("messages")
    .select("id")
    .where("provider_message_id", "=", providerMessageId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Stores an inbound WhatsApp message unless its provider id is already stored (then undefined). */
export async function insertInboundMessage(
  db: Db,
  values: Required<Omit<Insertable<MessagesTable>, "id" | "tx">>,
): Promise<MessageRow | undefined> {
  return db
    .insertInto("messages")
    .values(values)
    .onConflict((oc) => oc.column("provider_message_id").doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function setWhatsAppInboundAt(db: Db, userId: string, at: string): Promise<void> {
  await db.updateTable("conversations").set({ whatsapp_inbound_at: at }).where("user_id", "=", userId).execute();
}

/** When the family last wrote by WhatsApp, their phone and language (undefined: no conversation). */
export async function findWhatsAppContact(db: Db, userId: string) {
  return db
    .selectFrom("conversations")
    .innerJoin("users", "users.id", "conversations.user_id")
    .leftJoin("profiles", "profiles.user_id", "users.id")
    .select(["conversations.whatsapp_inbound_at as inboundAt", "users.phone as phone", "profiles.language as language"])
    .where("conversations.user_id", "=", userId)
    .executeTakeFirst();
}
