import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { DB } from "../../db/database.ts";
import {
  containsText,
  type DialectName,
  messagePositionCompare,
  olderThanEveryTransaction,
  runningTransactions,
} from "../../db/dialect.ts";
import { prepared } from "../../db/prepared.ts";
import type { Database, MessagesTable } from "../../db/schema.ts";

/** Every query of the Message Center. Functions take the database or a transaction. */
type Db = DB | Kysely<Database> | Transaction<Database>;
export type MessageRow = Selectable<MessagesTable>;

type NewMessage = Required<Omit<Insertable<MessagesTable>, "id" | "provider_message_id" | "tx">>;

// The two statements of every send, compiled once (db/prepared.ts).
const insertMessageQuery = prepared(
  ["user_id", "sender_id", "sender_role", "message_type", "body", "duration_seconds", "client_id", "created_at", "channel"],
  (db, values: NewMessage) =>
    db
      .insertInto("messages")
      .values(values)
      .onConflict((oc) => oc.columns(["sender_id", "client_id"]).doNothing())
      .returningAll(),
);

/**
 * Stores a message, unless its sender already stored one with the same `client_id` (a retry): then nothing is
 * written and the answer is undefined. One statement either way, so a send needs no read before it.
 */
export async function insertMessage(db: Db, values: NewMessage): Promise<MessageRow | undefined> {
  return (await insertMessageQuery.execute(db, values)).rows[0];
}

/** The storage keys of every voice note in a person's conversation (theirs and the facilitators'). */
export async function listVoiceNoteKeys(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("messages")
    .select("body")
    .where("user_id", "=", userId)
    .where("message_type", "=", "audio")
    .execute();
  return rows.map((r) => r.body);
}

export async function findMessageById(db: Db, id: number): Promise<MessageRow | undefined> {
  return db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findMessageByClientId(db: Db, senderId: string, clientId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom("messages")
    .selectAll()
    .where("sender_id", "=", senderId)
    .where("client_id", "=", clientId)
    .executeTakeFirst();
}

/** The conversation row a message moves: from the family, or (`facilitator_read_id`) from a facilitator. */
const touchQuery = (fromFamily: boolean) =>
  prepared(["user_id", "id", "created_at"], (db, m: Pick<MessageRow, "user_id" | "id" | "created_at">) => {
    const changes = {
      last_message_id: m.id,
      last_message_at: m.created_at,
      ...(fromFamily ? { user_read_id: m.id, last_user_message_id: m.id } : { facilitator_read_id: m.id }),
    };
    return db
      .insertInto("conversations")
      .values({ user_id: m.user_id, ...changes })
      .onConflict((oc) => oc.column("user_id").doUpdateSet(changes));
  });
const touchFromFamily = touchQuery(true);
const touchFromFacilitator = touchQuery(false);

/** Moves the conversation to the top of the inbox; the sender has read up to their own message. */
export async function touchConversation(db: Db, message: MessageRow): Promise<void> {
  await (message.sender_role === "user" ? touchFromFamily : touchFromFacilitator).execute(db, message);
}

/** The newest `limit` messages of a conversation before `before` (newest first), plus one to tell if more exist. */
export async function listConversationPage(
  db: Db,
  userId: string,
  before: number | undefined,
  limit: number,
): Promise<MessageRow[]> {
  let query = db.selectFrom("messages").selectAll().where("user_id", "=", userId);
  if (before !== undefined) query = query.where("id", "<", before);
  return query
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
}

/**
 * A place in the order readers of every conversation follow: (inserting transaction, id). `tx` is PostgreSQL's
 * xid8 as a decimal string ("0" on SQLite). Within one conversation it is id order (dialect.ts
 * lockConversationMessages).
 */
export interface MessagePosition {
  tx: string;
  id: number;
}

export const positionOf = (row: Pick<MessageRow, "tx" | "id">): MessagePosition => ({ tx: String(row.tx), id: row.id });

/** A message as the live reader reads it: whether it is final yet, and whether that needs a second read. */
export type ReadMessage = MessageRow & { settled: boolean; overtook: boolean };

/**
 * Messages of every conversation after `after` in (tx, id) order (PostgreSQL: in one snapshot with the running
 * transactions, dialect.ts runningTransactions). `settled`: no transaction of this database still running can
 * commit a row before it. `overtook`: a transaction of another database (or one of ours that has since ended) was
 * older, so a second read must confirm (LiveHub). SQLite, one writer: every row settled, none overtook.
 */
export async function listMessagesAfterPosition(
  db: Db,
  dialect: DialectName,
  after: MessagePosition,
  limit: number,
): Promise<ReadMessage[]> {
  const query = db
    // In parentheses: Kysely writes a raw common table expression as it is.
    .with("horizon", () => (dialect === "postgres" ? sql`(${runningTransactions})` : sql`(select null as ours, null as others)`))
    .selectFrom(["messages", "horizon"])
    .selectAll("messages")
    .select([
      sql<boolean>`(horizon.ours is null or messages.tx < horizon.ours)`.as("settled"),
      sql<boolean>`(horizon.others is not null and messages.tx > horizon.others)`.as("overtook"),
    ])
    .where(messagePositionCompare(dialect, ">", after))
    .orderBy("messages.tx")
    .orderBy("messages.id")
    .limit(limit);
  const rows = await query.execute();
  // SQLite answers 1/0.
  return rows.map((r) => ({ ...r, settled: Boolean(r.settled), overtook: Boolean(r.overtook) }));
}

/**
 * A replay: messages after `after` up to `upTo` (a place the live reader has passed, so all settled), of one
 * conversation after an id (its order is id order), or of every conversation after a position.
 */
export async function listMessagesBetween(
  db: Db,
  dialect: DialectName,
  from: { userId: string; afterId: number } | { after: MessagePosition },
  upTo: MessagePosition,
  limit: number,
): Promise<MessageRow[]> {
  let query = db
    .selectFrom("messages")
    .selectAll()
    .where(messagePositionCompare(dialect, "<=", upTo));
  query =
    "userId" in from
      ? query.where("user_id", "=", from.userId).where("id", ">", from.afterId)
      : query.where(messagePositionCompare(dialect, ">", from.after));
  return query.orderBy("tx").orderBy("id").limit(limit).execute();
}

/**
 * The last place no row can ever come before (older than every transaction running anywhere in the cluster): where a
 * reader starting now may begin. SQLite: the last message.
 */
export async function lastSettledPosition(db: Db, dialect: DialectName): Promise<MessagePosition> {
  const row = await db
    .selectFrom("messages")
    .select(["tx", "id"])
    .where(olderThanEveryTransaction(dialect))
    .orderBy("tx", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? positionOf(row) : { tx: "0", id: 0 };
}

/** Where message `id` stands in the order, if it still exists. */
export async function findMessagePosition(db: Db, id: number): Promise<MessagePosition | undefined> {
  const row = await db.selectFrom("messages").select(["tx", "id"]).where("id", "=", id).executeTakeFirst();
  return row ? positionOf(row) : undefined;
}

/** The newest id of a conversation at or before `upTo`. */
export async function maxMessageIdUpTo(db: Db, dialect: DialectName, userId: string, upTo: MessagePosition): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => eb.fn.max("id").as("max"))
    .where("user_id", "=", userId)
    .where(messagePositionCompare(dialect, "<=", upTo))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

export async function maxMessageId(db: Db, userId: string | null = null): Promise<number> {
  let query = db.selectFrom("messages").select((eb) => eb.fn.max("id").as("max"));
  if (userId !== null) query = query.where("user_id", "=", userId);
  const row = await query.executeTakeFirst();
  return Number(row?.max ?? 0);
}

export async function userExists(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("id", "=", userId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return Boolean(row);
}

export interface ConversationListRow {
  user_id: string;
  last_message_id: number;
  last_message_at: string;
  last_user_message_id: number;
  assigned_to: string | null;
  name: string | null;
  phone: string | null;
  phone_number: string | null;
  country_code: string | null;
  email: string | null;
  unread: number;
}

export interface ConversationListOptions {
  /** The last row of the previous page: the next page starts strictly after it. */
  after?: { lastMessageId: number; userId: string };
  limit: number;
  filter?: "unread" | "waiting" | "mine" | "unassigned";
  /** Whose conversations "mine" means. */
  operatorId: string;
  dialect: DialectName;
  /** Name, e-mail or message text contains `text`, or a phone number contains one of `phoneDigits`. */
  search?: { text: string; phoneDigits: string[] };
}

/**
 * Who a search finds, as one uncorrelated set (each table scanned once, then a hash or index lookup per
 * conversation) rather than a correlated test per conversation.
 */
function matchingPeople(db: Db, dialect: DialectName, text: string, phoneDigits: string[]) {
  // Stored numbers: E.164 on the account, dial code + national number on the profile (either may be missing).
  const profilePhone = sql<string>`coalesce(country_code, '') || replace(replace(coalesce(phone_number, ''), ' ', ''), '-', '')`;
  const profiles = db
    .selectFrom("profiles")
    .select("user_id")
    .where((eb) =>
      eb.or([
        containsText(dialect, eb.ref("name"), text),
        ...phoneDigits.map((digits) => containsText(dialect, profilePhone, digits)),
      ]),
    );
  const accounts = db
    .selectFrom("users")
    .select("id as user_id")
    .where((eb) =>
      eb.or([
        containsText(dialect, eb.ref("email"), text),
        ...phoneDigits.map((digits) => containsText(dialect, eb.ref("phone"), digits)),
      ]),
    );
  const messages = db
    .selectFrom("messages")
    .select("user_id")
    .where("message_type", "=", "text")
    .where((eb) => containsText(dialect, eb.ref("body"), text));
  // UNION ALL: IN ignores repeats, and a plain UNION made SQLite sort and merge the three (3x slower).
  return profiles.unionAll(accounts).unionAll(messages);
}

/**
 * The inbox: every conversation by last activity (its newest message id: ids commit in order, and each
 * belongs to one conversation), the user id breaking ties, with how many of the family's messages
 * facilitators have not read. Keyset paging, so a page never repeats a row of an earlier one however many
 * messages arrive in between (a conversation that gets a new one moves above the cursor, to the top).
 */
export async function listConversations(db: Db, options: ConversationListOptions): Promise<ConversationListRow[]> {
  let query = db
    .selectFrom("conversations as c")
    .innerJoin("users as u", "u.id", "c.user_id")
    .leftJoin("profiles as p", "p.user_id", "c.user_id")
    .select((eb) => [
      "c.user_id",
      "c.last_message_id",
      "c.last_message_at",
      "c.last_user_message_id",
      "c.assigned_to",
      "p.name",
      "u.phone",
      "p.phone_number",
      "p.country_code",
      "u.email",
      eb
        .selectFrom("messages as m")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("m.user_id", "=", "c.user_id")
        .whereRef("m.id", ">", "c.facilitator_read_id")
        .where("m.sender_role", "=", "user")
        .as("unread"),
    ]);
  const { after, filter, search } = options;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("c.last_message_id", "<", after.lastMessageId),
        eb.and([eb("c.last_message_id", "=", after.lastMessageId), eb("c.user_id", "<", after.userId)]),
      ]),
    );
  }
  if (filter === "unread") query = query.whereRef("c.last_user_message_id", ">", "c.facilitator_read_id");
  if (filter === "waiting") query = query.whereRef("c.last_user_message_id", "=", "c.last_message_id");
  if (filter === "mine") query = query.where("c.assigned_to", "=", options.operatorId);
  if (filter === "unassigned") query = query.where("c.assigned_to", "is", null);
  if (search) query = query.where("c.user_id", "in", matchingPeople(db, options.dialect, search.text, search.phoneDigits));
  const rows = await query.orderBy("c.last_message_id", "desc").orderBy("c.user_id", "desc").limit(options.limit).execute();
  return rows.map((r) => ({
    ...r,
    last_message_id: Number(r.last_message_id),
    last_user_message_id: Number(r.last_user_message_id),
    unread: Number(r.unread ?? 0),
  }));
}

export async function findMessagesByIds(db: Db, ids: number[]): Promise<MessageRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("messages").selectAll().where("id", "in", ids).execute();
}

/** Moves one side's read mark forward (never back). */
export async function markRead(db: Db, userId: string, side: "user" | "facilitator", upTo: number): Promise<void> {
  const column = side === "user" ? "user_read_id" : "facilitator_read_id";
  await db
    .updateTable("conversations")
    .set({ [column]: upTo })
    .where("user_id", "=", userId)
    .where(column, "<", upTo)
    .execute();
}

export async function findConversation(db: Db, userId: string) {
  return db.selectFrom("conversations").selectAll().where("user_id", "=", userId).executeTakeFirst();
}

export async function countUnread(db: Db, userId: string, fromRole: "user" | "facilitator", afterId: number): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .where("sender_role", "=", fromRole)
    .where("id", ">", afterId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The inbox tabs' counts: every conversation and nobody's from the row migration 0031's triggers keep (counting
 * them read every conversation), the operator's own from the (assigned_to, last_message_id) index.
 */
export async function countInboxTabs(db: Db, operatorId: string): Promise<{ all: number; mine: number; unassigned: number }> {
  const row = await db
    .selectFrom("inbox_counts")
    .select((eb) => [
      "conversations",
      "unassigned",
      eb
        .selectFrom("conversations")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("assigned_to", "=", operatorId)
        .as("mine"),
    ])
    .where("id", "=", 1)
    .executeTakeFirst();
  return { all: Number(row?.conversations ?? 0), mine: Number(row?.mine ?? 0), unassigned: Number(row?.unassigned ?? 0) };
}

/** Conversations with a family message no operator has read yet (the console's tab title counts them). */
export async function countUnreadConversations(db: Db): Promise<number> {
  const row = await db
    .selectFrom("conversations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .whereRef("last_user_message_id", ">", "facilitator_read_id")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Conversations whose newest message is the person's: waiting for a facilitator's reply. */
export async function countWaitingConversations(db: Db): Promise<number> {
  const row = await db
    .selectFrom("conversations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .whereRef("last_user_message_id", "=", "last_message_id")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function findAssignee(db: Db, userId: string): Promise<{ assigned_to: string | null } | undefined> {
  return db.selectFrom("conversations").select("assigned_to").where("user_id", "=", userId).executeTakeFirst();
}

/**
 * Moves the assignee from `from` (as read) to `assignee`. Conditional on `from`, so of two racing changes the second
 * finds nothing to update (false) instead of overwriting a change its permission check never saw.
 */
export async function setAssignee(db: Db, userId: string, from: string | null, assignee: string | null, at: string | null) {
  const result = await db
    .updateTable("conversations")
    .set({ assigned_to: assignee, assigned_at: at })
    .where("user_id", "=", userId)
    .where("assigned_to", from === null ? "is" : "=", from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function findPerson(db: Db, userId: string) {
  return db
    .selectFrom("users as u")
    .leftJoin("profiles as p", "p.user_id", "u.id")
    .select([
      "u.id",
      "u.email",
      "u.phone",
      "u.created_at",
      "p.name",
      "p.phone_number",
      "p.country_code",
      "p.city",
      "p.gender",
      "p.age_group",
      "p.language",
    ])
    .where("u.id", "=", userId)
    .executeTakeFirst();
}

export async function listWatchedStories(db: Db, userId: string) {
  return db
    .selectFrom("progress as pr")
    .leftJoin("stories as s", "s.id", "pr.story_id")
    .select(["pr.story_id", "pr.story_position", "pr.watched_at", "s.title_en"])
    .where("pr.user_id", "=", userId)
    .orderBy("pr.story_position", "asc")
    .execute();
}

/** The greeting audio and its words per language (none stored: no audio, no words). */
export async function findGreeting(db: Db) {
  const row = await db
    .selectFrom("documents")
    .select(["path", "transcript_en", "transcript_ar"])
    .where("key", "=", "greetingAudio")
    .executeTakeFirst();
  return { audio: row?.path ?? null, transcript: { en: row?.transcript_en ?? null, ar: row?.transcript_ar ?? null } };
}

/**
 * Operators' display names for the console: the name they chose in the console (user_metadata.display_name, set on
 * the Team page), else the profile name, else the e-mail or phone.
 */
export async function senderNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("users as u")
    .leftJoin("profiles as p", "p.user_id", "u.id")
    .select(["u.id", "u.email", "u.phone", "u.user_metadata", "p.name"])
    .where("u.id", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.id, displayNameOf(r.user_metadata) || r.name || r.email || r.phone || ""]));
}

/** The console display name an operator chose, if any (user_metadata is JSON text). */
export function displayNameOf(userMetadata: string | null): string | null {
  try {
    const value = (JSON.parse(userMetadata ?? "{}") as { display_name?: unknown }).display_name;
    return typeof value === "string" && value.trim() ? value.trim() : null;
  } catch {
    return null;
  }
}
