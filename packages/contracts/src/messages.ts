import { z } from "zod";

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

export const greetingSchema = z.object({ audio: z.string().nullable() });
export type Greeting = z.infer<typeof greetingSchema>;

/** A client-made idempotency key: a retried send never makes a second message. */
export const clientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

export const conversationSummarySchema = z.object({
  userId: z.string(),
  name: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  lastMessage: chatMessageSchema.nullable(),
  lastMessageAt: z.string(),
  unread: z.number().int(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

export const conversationListSchema = z.object({
  conversations: z.array(conversationSummarySchema),
  nextBefore: z.string().nullable(),
});
export type ConversationList = z.infer<typeof conversationListSchema>;

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
});
export type ConversationPerson = z.infer<typeof conversationPersonSchema>;

/** One event of the live stream (`event: message`, `id: <_id>`, data this JSON). */
export const streamEventSchema = chatMessageSchema;
