import { z } from "zod";
import { transcriptSchema } from "./transcripts.ts";

/** Message Center: one conversation per user with the facilitator team (spec sections 2, 3, 7). */
export const MESSAGE_TYPES = ["text", "audio"] as const;
export const messageTypeSchema = z.enum(MESSAGE_TYPES);
export type MessageType = z.infer<typeof messageTypeSchema>;

export const SENDER_ROLES = ["user", "facilitator"] as const;
export const senderRoleSchema = z.enum(SENDER_ROLES);
export type SenderRole = z.infer<typeof senderRoleSchema>;

/** Limits of the Message Center. */
export const MESSAGE_TEXT_MAX_LENGTH = 4000;
export const VOICE_NOTE_MAX_BYTES = 10 * 1024 * 1024;
export const VOICE_NOTE_MAX_SECONDS = 600;
export const MESSAGES_PAGE_DEFAULT = 50;
export const MESSAGES_PAGE_MAX = 200;

/**
 * A message as the spec names its fields: `from` is the sender's user id (the client compares it with
 * its stored user id), `message` the text or, for a voice note, the authenticated path of its audio.
 * `_id` is also the ordering cursor and the live stream's event id.
 */
export const chatMessageSchema = z.object({
  _id: z.string(),
  conversation: z.string(),
  from: z.string(),
  senderRole: senderRoleSchema,
  messageType: messageTypeSchema,
  message: z.string(),
  durationSeconds: z.number().nullable(),
  clientId: z.string().nullable(),
  createdAt: z.string(),
  /** The console only: which operator wrote a facilitator message (the family sees the team's name). */
  senderName: z.string().optional(),
  /** Present when the message came or went by the family's WhatsApp (the console marks it); absent: the app. */
  channel: z.literal("whatsapp").optional(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Body of POST /api/messages (token API): newest page first, `before` pages back in time. */
/** A message id as a paging cursor: 15 digits at most, so it stays an exact number and fits either database. */
export const MESSAGE_CURSOR = /^\d{1,15}$/;

export const messagesPageRequestSchema = z.object({
  before: z.coerce.string().regex(MESSAGE_CURSOR).optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGES_PAGE_MAX).optional(),
});
export type MessagesPageRequest = z.infer<typeof messagesPageRequestSchema>;

/** A page of messages in time order (oldest first); `hasMore` says older ones exist before the first. */
export const messagesPageSchema = z.object({ messages: z.array(chatMessageSchema), hasMore: z.boolean() });
export type MessagesPage = z.infer<typeof messagesPageSchema>;

/** The greeting audio and what it says, per language (null where none was typed): read under it behind "Read". */
export const greetingSchema = z.object({ audio: z.string().nullable(), transcript: transcriptSchema });
export type Greeting = z.infer<typeof greetingSchema>;

/** A client-made idempotency key: a retried send never makes a second message. */
export const clientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

/**
 * The console's inbox: GET /api/admin/conversations?cursor&limit&q&filter. Every conversation, last activity
 * first, paged by an opaque `cursor` (the previous page's `nextCursor`). `q` finds a person by name, e-mail,
 * phone in any form (with or without "+" or the country code, the local "0…" form, spaces, dashes) and by the
 * text of their messages; LIKE wildcards in it are plain characters.
 */
export const INBOX_PAGE_DEFAULT = 30;
export const INBOX_PAGE_MAX = 100;
/**
 * unread: the family wrote after the facilitators last read; waiting: the newest message is the family's; mine: assigned
 * to the caller; unassigned: nobody has it.
 */
export const INBOX_FILTERS = ["unread", "waiting", "mine", "unassigned"] as const;
export const inboxFilterSchema = z.enum(INBOX_FILTERS);
export type InboxFilter = z.infer<typeof inboxFilterSchema>;

/** `q` has no length limit here: the service refuses one over SEARCH_MAX_LENGTH with its own code (`search_too_long`). */
export const conversationListRequestSchema = z.object({
  cursor: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(INBOX_PAGE_MAX).optional(),
  q: z.string().optional(),
  filter: inboxFilterSchema.optional(),
});
export type ConversationListRequest = z.infer<typeof conversationListRequestSchema>;

export const conversationAssigneeSchema = z.object({ userId: z.string(), name: z.string() });
export type ConversationAssignee = z.infer<typeof conversationAssigneeSchema>;

export const conversationSummarySchema = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  /** International form ("+962791234567") whichever way the number was stored. */
  phone: z.string().nullable(),
  email: z.string().nullable(),
  lastMessage: chatMessageSchema.nullable(),
  lastMessageAt: z.string(),
  unread: z.number().int(),
  /** The newest message is the family's: nobody has answered yet. */
  waiting: z.boolean(),
  assignedTo: conversationAssigneeSchema.nullable(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/** GET /api/admin/conversations/waiting: conversations waiting for a reply, and those with unread messages. */
export const inboxBadgeSchema = z.object({ count: z.number().int(), unread: z.number().int() });
export type InboxBadge = z.infer<typeof inboxBadgeSchema>;

/** How many conversations each of the inbox's tabs holds (whatever the search and filter of the page). */
export const inboxCountsSchema = z.object({ all: z.number().int(), mine: z.number().int(), unassigned: z.number().int() });
export type InboxCounts = z.infer<typeof inboxCountsSchema>;

export const conversationListSchema = z.object({
  conversations: z.array(conversationSummarySchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
  counts: inboxCountsSchema,
});
export type ConversationList = z.infer<typeof conversationListSchema>;

/** Answer of POST/DELETE/PUT /api/admin/conversations/:userId/assignee (assign to me, unassign, hand over). */
export const conversationAssignmentSchema = z.object({ userId: z.string(), assignedTo: conversationAssigneeSchema.nullable() });
export type ConversationAssignment = z.infer<typeof conversationAssignmentSchema>;

/**
 * The facilitators' live stream's `assignment` event: this conversation's assignee changed (read it afresh); null
 * when any may have (the server may have missed signals).
 */
export const liveAssignmentSchema = z.object({
  conversation: z.string().nullable(),
  /** Who has it now and who made the change (absent after a gap): a console tells its operator when handed one. */
  assignee: z.string().nullable().optional(),
  by: z.string().optional(),
});
export type LiveAssignment = z.infer<typeof liveAssignmentSchema>;

export const conversationPersonSchema = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  city: z.string().nullable(),
  gender: z.string().nullable(),
  ageGroup: z.string().nullable(),
  country: z.string().nullable(),
  joinedAt: z.string().nullable(),
  watchedStories: z.array(z.object({ storyId: z.string(), order: z.number(), title: z.string(), watchedAt: z.string() })),
  /** Who took the conversation (null: nobody, or the person has not written yet). */
  assignedTo: conversationAssigneeSchema.nullable(),
  /** The language the family uses the app in ("en" | "ar"): saved replies are inserted in it. */
  language: z.enum(["en", "ar"]),
  /** Until when a reply goes out by WhatsApp (24 hours after the family last wrote there); null: closed or never. */
  whatsappWindowUntil: z.string().nullable().optional(),
});
export type ConversationPerson = z.infer<typeof conversationPersonSchema>;

/** One event of the live stream (`event: message`, `id: <_id>`, data this JSON). */
export const streamEventSchema = chatMessageSchema;
