import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import {
  type ChatMessage,
  type ConversationAssignee,
  type ConversationAssignment,
  type ConversationList,
  type ConversationListRequest,
  type ConversationPerson,
  type Greeting,
  INBOX_PAGE_DEFAULT,
  MESSAGE_TEXT_MAX_LENGTH,
  MESSAGES_PAGE_DEFAULT,
  type MessagesPage,
  type MessageType,
  type SenderRole,
  VOICE_NOTE_MAX_BYTES,
  VOICE_NOTE_MAX_SECONDS,
} from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { type DialectName, lockConversationMessages } from "../../db/dialect.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, notFound } from "../../errors.ts";
import type { FileStorage } from "../../infrastructure/files/index.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { voiceCopyKey } from "../media/enqueue.ts";
import { peopleSearch } from "../users/users.service.ts";
import type { LiveHub } from "./live-hub.ts";
import type { MessageRow } from "./messages.repository.ts";
import * as repo from "./messages.repository.ts";
import { storeVoiceNote, VOICE_BUCKET } from "./voice-notes.ts";

export { VOICE_BUCKET };

/** The authenticated path a voice note is served from (owner and facilitators only). */
export const voiceNotePath = (id: number) => `/api/messages/audio/${id}`;

/** The stored files of a person's conversation (account deletion removes them after the rows). */
export async function voiceNoteFilesOf(db: DB, userId: string): Promise<{ bucket: typeof VOICE_BUCKET; key: string }[]> {
  // With each note its processed copy (media module), which holds the same voice.
  return (await repo.listVoiceNoteKeys(db, userId)).flatMap((key) => [
    { bucket: VOICE_BUCKET, key },
    { bucket: VOICE_BUCKET, key: voiceCopyKey(key) },
  ]);
}

export function toChatMessage(row: MessageRow): ChatMessage {
  return {
    _id: String(row.id),
    conversation: row.user_id,
    from: row.sender_id,
    senderRole: row.sender_role,
    messageType: row.message_type,
    message: row.message_type === "audio" ? voiceNotePath(row.id) : row.body,
    durationSeconds: row.duration_seconds,
    clientId: row.client_id,
    createdAt: row.created_at,
    ...(row.channel === "whatsapp" ? { channel: "whatsapp" as const } : {}),
  };
}

/** A page cursor: the last row's (newest message id, user id), opaque to clients. */
function encodeCursor(lastMessageId: number, userId: string): string {
  return Buffer.from(`${lastMessageId}.${userId}`).toString("base64url");
}

function decodeCursor(cursor: string): { lastMessageId: number; userId: string } {
  const match = /^(\d{1,15})\.(.{1,100})$/s.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new AppError("validation_failed", "cursor is not one this server gave");
  return { lastMessageId: Number(match[1]), userId: match[2] as string };
}

/** A number as the console shows it: international, whichever way it was stored (E.164, or dial code + national). */
export function internationalPhone(row: { phone: string | null; phone_number: string | null; country_code: string | null }) {
  if (row.phone) return row.phone;
  const national = row.phone_number?.trim();
  if (!national) return null;
  if (national.startsWith("+") || !row.country_code) return national;
  return `${row.country_code}${national.replace(/^0/, "")}`;
}

function assigneeOf(id: string | null, names: Map<string, string>): ConversationAssignee | null {
  return id ? { userId: id, name: names.get(id) ?? "" } : null;
}

export interface Sender {
  userId: string;
  role: SenderRole;
}

/** What a send form carried, once its voice note (if any) is already in storage. */
export interface SendInput {
  messageType: MessageType | undefined;
  text: string | undefined;
  audio: { key: string; contentType: string } | null;
  durationSeconds: number | undefined;
  clientId: string | undefined;
  /** A facilitator's reply that goes out by the family's WhatsApp (whatsapp.service.ts); the app otherwise. */
  channel?: "app" | "whatsapp";
}

export class MessagesService {
  readonly #db: DB;
  readonly #dialect: DialectName;
  readonly #storage: FileStorage;
  readonly #hub: LiveHub;
  readonly #deps: Pick<AppDeps, "config" | "fileEvents" | "legacyMessageOrder">;
  readonly #onStored: (row: MessageRow) => void;

  /** `onStored`: told of each new message once it is announced (operator-alerts.service.ts pushes families' ones). */
  constructor(
    db: DB,
    dialect: DialectName,
    storage: FileStorage,
    hub: LiveHub,
    deps: Pick<AppDeps, "config" | "fileEvents">,
    onStored: (row: MessageRow) => void = () => undefined,
  ) {
    this.#db = db;
    this.#dialect = dialect;
    this.#storage = storage;
    this.#hub = hub;
    this.#deps = deps;
    this.#onStored = onStored;
  }

  /** A new message is stored: every open stream hears of it (through the bus), and so do operators away from them. */
  async announceStored(row: MessageRow): Promise<void> {
    await this.#hub.announce(row).catch(() => undefined);
    this.#onStored(row);
  }

  /** A conversation page: newest first by page, each page in time order. */
  async page(conversationUserId: string, before: number | undefined, limit = MESSAGES_PAGE_DEFAULT): Promise<MessagesPage> {
    const rows = await repo.listConversationPage(this.#db, conversationUserId, before, limit);
    const hasMore = rows.length > limit;
    return { messages: rows.slice(0, limit).reverse().map(toChatMessage), hasMore };
  }

  /** A page for the console: facilitator messages carry the name of the operator who wrote them. */
  async pageWithSenders(conversationUserId: string, before: number | undefined, limit?: number): Promise<MessagesPage> {
    const page = await this.page(conversationUserId, before, limit);
    const ids = [...new Set(page.messages.filter((m) => m.senderRole === "facilitator").map((m) => m.from))];
    const names = await repo.senderNames(this.#db, ids);
    return { ...page, messages: page.messages.map((m) => withSenderName(m, names)) };
  }

  async ensureConversationOwner(userId: string) {
    if (!(await repo.userExists(this.#db, userId))) throw notFound("No such user");
  }

  /** Takes a voice note into private storage under the conversation's folder; sniffed, size-capped and measured. */
  async storeVoiceNote(conversationUserId: string, source: Readable) {
    const deps = { storage: this.#storage, config: this.#deps.config };
    return storeVoiceNote(deps, `${conversationUserId}/${randomUUID()}`, source, VOICE_NOTE_MAX_BYTES);
  }

  async discardVoiceNote(key: string) {
    await this.#storage.delete(VOICE_BUCKET, key).catch(() => undefined);
  }

  /**
   * Validates and stores one message, then signals live delivery. The row is committed before this
   * returns, so an acknowledged message is never lost. A repeated `clientId` from the same sender
   * returns the message already stored (a retry after a lost answer) instead of a second one.
   */
  async send(conversationUserId: string, sender: Sender, input: SendInput): Promise<{ message: ChatMessage; created: boolean }> {
    const type = input.messageType ?? (input.audio ? "audio" : "text");
    let body: string;
    let duration: number | null = null;
    if (type === "text") {
      if (input.audio) throw new AppError("validation_failed", "A text message cannot carry an audio file");
      const text = (input.text ?? "").trim();
      if (!text) throw new AppError("validation_failed", "The message is empty");
      if (text.length > MESSAGE_TEXT_MAX_LENGTH)
        throw new AppError("validation_failed", `Messages are limited to ${MESSAGE_TEXT_MAX_LENGTH} characters`);
      body = text;
    } else {
      if (!input.audio) throw new AppError("validation_failed", "A voice message needs an audio file");
      body = input.audio.key;
      if (input.durationSeconds !== undefined) {
        if (!Number.isFinite(input.durationSeconds) || input.durationSeconds < 0)
          throw new AppError("validation_failed", "durationSeconds must be a positive number");
        duration = Math.min(Math.round(input.durationSeconds * 10) / 10, VOICE_NOTE_MAX_SECONDS);
      }
    }
    const clientId = input.clientId ?? null;
    // No read first: the insert itself skips a clientId this sender already used, and then the message stored the
    // first time is the answer. The common case, a new message, is one statement before the conversation's.
    const { row, created } = await this.#db.transaction().execute(async (trx) => {
      await lockConversationMessages(trx, this.#dialect, conversationUserId, this.#deps.legacyMessageOrder);
      const inserted = await repo.insertMessage(trx, {
        user_id: conversationUserId,
        sender_id: sender.userId,
        sender_role: sender.role,
        message_type: type,
        body,
        duration_seconds: duration,
        client_id: clientId,
        created_at: new Date().toISOString(),
        channel: input.channel ?? "app",
      });
      if (inserted) {
        await repo.touchConversation(trx, inserted);
        return { row: inserted, created: true };
      }
      const existing = clientId ? await repo.findMessageByClientId(trx, sender.userId, clientId) : undefined;
      if (!existing) throw new Error("A message was neither stored nor found by its clientId");
      return { row: existing, created: false };
    });
    if (!created) return { message: this.#sameRequest(row, conversationUserId), created: false };
    // A voice note plays at once as it was recorded; its AAC-in-MP4 copy (modules/media, which listens: plays on
    // every phone, at one loudness) replaces it once ready. The message is already stored: a failed enqueue leaves
    // the original.
    if (type === "audio" && input.audio)
      await this.#deps.fileEvents
        .fileStored({ bucket: VOICE_BUCKET, key: body, contentType: input.audio.contentType, use: { kind: "voice-note" } })
        .catch(() => undefined);
    await this.announceStored(row);
    return { message: toChatMessage(row), created: true };
  }

  #sameRequest(existing: MessageRow, conversationUserId: string): ChatMessage {
    if (existing.user_id !== conversationUserId)
      throw new AppError("conflict", "This clientId was used for another conversation");
    return toChatMessage(existing);
  }

  /** The stored key of a voice note, if `viewer` may hear it (the conversation's owner or a facilitator). */
  async voiceNoteKey(messageId: number, viewer: { userId: string; isAdmin: boolean }): Promise<string> {
    const row = await repo.findMessageById(this.#db, messageId);
    if (row?.message_type !== "audio") throw notFound("Voice message not found");
    if (row.user_id !== viewer.userId && !viewer.isAdmin) throw notFound("Voice message not found");
    return row.body;
  }

  async markRead(conversationUserId: string, side: "user" | "facilitator", upTo: number | undefined) {
    const target = upTo ?? (await repo.maxMessageId(this.#db, conversationUserId));
    if (target > 0) await repo.markRead(this.#db, conversationUserId, side, target);
  }

  async unreadForUser(userId: string): Promise<number> {
    const conversation = await repo.findConversation(this.#db, userId);
    if (!conversation) return 0;
    return repo.countUnread(this.#db, userId, "facilitator", conversation.user_read_id);
  }

  async waitingCount(): Promise<{ count: number; unread: number }> {
    const [count, unread] = await Promise.all([
      repo.countWaitingConversations(this.#db),
      repo.countUnreadConversations(this.#db),
    ]);
    return { count, unread };
  }

  /** The inbox page after `request.cursor`, searched and filtered; `operatorId` is whose "mine" means. */
  async conversations(request: ConversationListRequest, operatorId: string): Promise<ConversationList> {
    // The people list's reading of a search: refuses one over SEARCH_MAX_LENGTH, finds the phone digits in any form.
    const { phoneDigits } = peopleSearch(request.q ?? "");
    const text = (request.q ?? "").trim();
    const limit = request.limit ?? INBOX_PAGE_DEFAULT;
    const counts = repo.countInboxTabs(this.#db, operatorId);
    const rows = await repo.listConversations(this.#db, {
      after: request.cursor ? decodeCursor(request.cursor) : undefined,
      limit: limit + 1,
      filter: request.filter,
      operatorId,
      dialect: this.#dialect,
      search: text ? { text, phoneDigits } : undefined,
    });
    const page = rows.slice(0, limit);
    const lastMessages = await repo.findMessagesByIds(
      this.#db,
      page.map((r) => r.last_message_id),
    );
    // The assignees' names, and the names of the operators who wrote each last reply: the list says whose it was.
    const replied = lastMessages.flatMap((m) => (m.sender_role === "facilitator" ? [m.sender_id] : []));
    const names = await repo.senderNames(this.#db, [
      ...new Set([...page.flatMap((r) => (r.assigned_to ? [r.assigned_to] : [])), ...replied]),
    ]);
    const last = new Map(lastMessages.map((m) => [Number(m.id), m]));
    const lastRow = page.at(-1);
    return {
      conversations: page.map((r) => {
        const message = last.get(r.last_message_id);
        return {
          userId: r.user_id,
          name: r.name,
          phone: internationalPhone(r),
          email: r.email,
          lastMessage: message ? withSenderName(toChatMessage(message), names) : null,
          lastMessageAt: r.last_message_at,
          unread: r.unread,
          waiting: r.last_user_message_id === r.last_message_id,
          assignedTo: assigneeOf(r.assigned_to, names),
        };
      }),
      nextCursor: rows.length > limit && lastRow ? encodeCursor(lastRow.last_message_id, lastRow.user_id) : null,
      counts: await counts,
    };
  }

  /**
   * Assigns a conversation to `assignee` (null: unassigns it); audited with the change, which every open inbox hears
   * live (on every replica, through the bus), the new assignee's console included. `allowed` sees who has it now
   * (inside the transaction) and throws when the caller may not change it.
   */
  async assign(
    conversationUserId: string,
    operator: Actor,
    assignee: string | null,
    allowed: (current: string | null) => void = () => undefined,
  ): Promise<ConversationAssignment> {
    const changed = await this.#db.transaction().execute(async (trx) => {
      const current = await repo.findAssignee(trx, conversationUserId);
      if (!current) throw notFound("This person has not written yet");
      allowed(current.assigned_to);
      if (current.assigned_to === assignee) return false;
      const at = assignee ? new Date().toISOString() : null;
      if (!(await repo.setAssignee(trx, conversationUserId, current.assigned_to, assignee, at)))
        throw new AppError("conflict", "Someone else changed who has this conversation");
      await audit(
        trx,
        operator,
        assignee ? "conversation.assign" : "conversation.unassign",
        { type: "conversation", id: conversationUserId },
        { from: current.assigned_to, to: assignee },
      );
      return true;
    });
    // Stored before it is told; a lost signal costs an inbox a stale label until its next read, never a wrong one.
    if (changed) await this.#hub.announceAssignment(conversationUserId, { assignee, by: operator.id }).catch(() => undefined);
    const names = await repo.senderNames(this.#db, assignee ? [assignee] : []);
    return { userId: conversationUserId, assignedTo: assigneeOf(assignee, names) };
  }

  async person(userId: string): Promise<ConversationPerson> {
    const person = await repo.findPerson(this.#db, userId);
    if (!person) throw notFound("No such user");
    const [watched, assignment] = await Promise.all([
      repo.listWatchedStories(this.#db, userId),
      repo.findAssignee(this.#db, userId),
    ]);
    const assignee = assignment?.assigned_to ?? null;
    const names = await repo.senderNames(this.#db, assignee ? [assignee] : []);
    return {
      userId: person.id,
      name: person.name,
      phone: internationalPhone(person),
      email: person.email,
      city: person.city,
      gender: person.gender,
      ageGroup: person.age_group,
      country: person.country_code,
      joinedAt: person.created_at,
      watchedStories: watched.map((w) => ({
        storyId: w.story_id,
        order: w.story_position,
        title: w.title_en ?? "",
        watchedAt: w.watched_at,
      })),
      assignedTo: assigneeOf(assignee, names),
      language: person.language === "ar" ? "ar" : "en",
    };
  }

  async greeting(): Promise<Greeting> {
    return repo.findGreeting(this.#db);
  }
}

/** A facilitator message with the name of the operator who wrote it (the console's reads only). */
function withSenderName(m: ChatMessage, names: Map<string, string>): ChatMessage {
  const name = m.senderRole === "facilitator" ? names.get(m.from) : undefined;
  return name ? { ...m, senderName: name } : m;
}
