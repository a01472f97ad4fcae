import { z } from "zod";

/**
 * The family answers back (issue 39): a relative who holds a share link leaves a reply under a voice or a question
 * for the book, as a voice or a few typed lines, without an account; the storyteller decides what shows in the book
 * and answers questions with a recording.
 *
 *   POST /k/{token}/messages                multipart FamilyMessageForm (+ `audio` file) → 201 FamilyMessageCreated
 *   GET  /api/family-messages               → FamilyMessageList (the storyteller's, newest first)
 *   POST /api/family-messages/{id}/status   FamilyMessageStatusChange → FamilyMessage
 *   POST /api/family-messages/{id}/answer   multipart `audio` → FamilyMessage (status "answered")
 */
export const FAMILY_MESSAGE_KINDS = ["reply", "question"] as const;
export type FamilyMessageKind = (typeof FAMILY_MESSAGE_KINDS)[number];

export const FAMILY_MESSAGE_STATUSES = ["pending", "shown", "hidden", "answered"] as const;
export type FamilyMessageStatus = (typeof FAMILY_MESSAGE_STATUSES)[number];

export const FAMILY_NAME_MAX = 80;
export const FAMILY_TEXT_MAX = 2000;
export const FAMILY_VOICE_MAX_BYTES = 10 * 1024 * 1024;
export const FAMILY_VOICE_MAX_SECONDS = 5 * 60;

const noNul = (v: string) => !v.includes("\0");

/** The typed fields of a relative's message; `text` or an `audio` file, not neither. */
export const familyMessageFormSchema = z.object({
  kind: z.enum(FAMILY_MESSAGE_KINDS),
  name: z.string().trim().min(1).max(FAMILY_NAME_MAX).refine(noNul, "contains a NUL character"),
  text: z.string().trim().max(FAMILY_TEXT_MAX).refine(noNul, "contains a NUL character").optional(),
  /** The voice replied to, as the listening page names it (`recording-<id>` or `answer-<id>`). */
  voice: z.string().trim().max(120).optional(),
  /** To be told when the question is answered, with its country code. */
  phone: z.string().trim().max(32).optional(),
});
export type FamilyMessageForm = z.infer<typeof familyMessageFormSchema>;

export const familyMessageCreatedSchema = z.object({ id: z.string(), status: z.literal("pending") });
export type FamilyMessageCreated = z.infer<typeof familyMessageCreatedSchema>;

export const familyMessageSchema = z.object({
  id: z.string(),
  kind: z.enum(FAMILY_MESSAGE_KINDS),
  name: z.string(),
  text: z.string().nullable(),
  /** A short-lived signed address of the relative's voice, when they recorded one. */
  audio: z.string().nullable(),
  status: z.enum(FAMILY_MESSAGE_STATUSES),
  /** The voice replied to, when the relative replied under one. */
  voice: z.object({ kind: z.enum(["recording", "answer"]), id: z.string() }).nullable(),
  /** The storyteller's recorded answer to a question. */
  answerAudio: z.string().nullable(),
  /** Whether the relative left a number to be told of the answer (the number itself stays with the server). */
  wantsReply: z.boolean(),
  language: z.enum(["en", "ar"]),
  createdAt: z.string(),
  answeredAt: z.string().nullable(),
});
export type FamilyMessage = z.infer<typeof familyMessageSchema>;

export const familyMessageListSchema = z.object({
  messages: z.array(familyMessageSchema),
  /** Messages still pending: the menu's count. */
  unread: z.number().int(),
});
export type FamilyMessageList = z.infer<typeof familyMessageListSchema>;

/** The storyteller shows or hides a message; "answered" comes only from recording an answer. */
export const familyMessageStatusChangeSchema = z.object({ status: z.enum(["shown", "hidden"]) });
export type FamilyMessageStatusChange = z.infer<typeof familyMessageStatusChangeSchema>;

export const familyMessageParamsSchema = z.object({ id: z.string().min(1).max(64) });
