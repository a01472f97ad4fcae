import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

export interface SeededPerson {
  id: string;
  name: string;
  /** E.164, as the account keeps it. */
  phone: string;
  message: string;
}

export interface SeededInbox {
  /** The oldest conversation of all, found only by searching. */
  byPhone: SeededPerson;
  /** An unread conversation further down than the first pages. */
  olderUnread: SeededPerson;
  /** Its place from the top of the inbox among the seeded conversations (0 = newest). */
  olderUnreadPlace: number;
}

/**
 * Writes `count` conversations straight into the running e2e server's SQLite database (one transaction of
 * prepared inserts: a second or so, where 10,000 sign-ups and sends over HTTP would take minutes). Each
 * person has a Jordanian number under `prefix` ("+9627810…"), one message from the family that the team has
 * already read, and is newer than anything made before. Two are special: the oldest (found by phone) and one
 * `olderUnreadPlace` from the top whose message nobody has read.
 */
export function seedInbox(options: { count: number; prefix: string; label: string; olderUnreadPlace: number }): SeededInbox {
  const db = openServerDatabase();
  const now = Date.now();
  const insertUser = db.prepare(
    'insert into users (id, email, phone, role, app_metadata, user_metadata, is_anonymous, created_at, updated_at) values (?, null, ?, \'authenticated\', \'{"provider":"phone","providers":["phone"]}\', \'{}\', 0, ?, ?)',
  );
  const insertProfile = db.prepare(
    "insert into profiles (user_id, name, phone_number, country_code, from_landing_page, agree_to_reminder, created_at, updated_at) values (?, ?, ?, '+962', 0, 0, ?, ?)",
  );
  const insertMessage = db.prepare(`${INSERT_MESSAGE} 'app') returning id`);
  const insertConversation = db.prepare(
    "insert into conversations (user_id, last_message_id, last_message_at, user_read_id, facilitator_read_id, last_user_message_id) values (?, ?, ?, ?, ?, ?)",
  );
  const unreadIndex = options.count - 1 - options.olderUnreadPlace;
  const people: SeededPerson[] = [];
  db.exec("begin");
  try {
    for (let i = 0; i < options.count; i++) {
      const id = randomUUID();
      const national = `${options.prefix.slice(4)}${String(i).padStart(9 - (options.prefix.length - 4), "0")}`;
      const phone = `+962${national}`;
      const name = i === 0 ? `${options.label} phone` : i === unreadIndex ? `${options.label} unread` : `${options.label} ${i}`;
      const message =
        i === unreadIndex ? `${options.label}: we are still waiting for the next story` : `${options.label}: hello ${i}`;
      // Minutes apart, oldest first, all in the past.
      const at = new Date(now - (options.count - i) * 60_000).toISOString();
      insertUser.run(id, phone, at, at);
      insertProfile.run(id, name, national, at, at);
      const row = insertMessage.get(id, id, message, at) as { id: number };
      const read = i === unreadIndex ? 0 : row.id;
      insertConversation.run(id, row.id, at, row.id, read, row.id);
      people.push({ id, name, phone, message });
    }
    db.exec("commit");
  } catch (error) {
    db.exec("rollback");
    throw error;
  } finally {
    db.close();
  }
  return {
    byPhone: people[0] as SeededPerson,
    olderUnread: people[unreadIndex] as SeededPerson,
    olderUnreadPlace: options.olderUnreadPlace,
  };
}

const INSERT_MESSAGE =
  "insert into messages (user_id, sender_id, sender_role, message_type, body, created_at, channel) values (?, ?, 'user', 'text', ?, ?,";

/** The running e2e server's SQLite database, for what no API does (the caller closes it). */
export function openServerDatabase(): DatabaseSync {
  const db = new DatabaseSync(join(process.env.E2E_DATA_DIR ?? "", "hikaya.db"));
  db.exec("pragma busy_timeout = 10000");
  return db;
}

/**
 * Marks a person's conversation as one they write by WhatsApp (what the provider's webhook does, which needs a
 * provider the e2e server does not have): their last message came by WhatsApp `minutesAgo` minutes ago.
 */
export function seedWhatsAppMessage(userId: string, text: string, minutesAgo: number): void {
  const db = openServerDatabase();
  const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  try {
    const row = db.prepare(`${INSERT_MESSAGE} 'whatsapp') returning id`).get(userId, userId, text, at) as { id: number };
    db.prepare(
      "update conversations set last_message_id = ?, last_message_at = ?, last_user_message_id = ?, whatsapp_inbound_at = ? where user_id = ?",
    ).run(row.id, at, row.id, at, userId);
  } finally {
    db.close();
  }
}
