import { z } from "zod";

/**
 * The team's inbox tools (issue 40): saved replies every operator can insert, private notes on a conversation that
 * only operators see, and handing a conversation to a colleague.
 */
export const SAVED_REPLY_TITLE_MAX = 80;
export const SAVED_REPLY_TEXT_MAX = 2000;
export const NOTE_TEXT_MAX = 2000;

const required = (max: number) => z.string().trim().min(1).max(max);

/** Body of POST /api/admin/replies and PUT /api/admin/replies/{id} (admins). */
export const savedReplyInputSchema = z.object({
  title: required(SAVED_REPLY_TITLE_MAX),
  textEn: required(SAVED_REPLY_TEXT_MAX),
  textAr: required(SAVED_REPLY_TEXT_MAX),
});
export type SavedReplyInput = z.infer<typeof savedReplyInputSchema>;

export const savedReplySchema = savedReplyInputSchema.extend({ id: z.string(), updatedAt: z.string() });
export type SavedReply = z.infer<typeof savedReplySchema>;

/** Body of POST /api/admin/conversations/{userId}/notes. */
export const noteInputSchema = z.object({ text: required(NOTE_TEXT_MAX) });
export type NoteInput = z.infer<typeof noteInputSchema>;

/** A private note: operators only, never in anything the family's API returns. */
export const conversationNoteSchema = z.object({
  id: z.string(),
  conversation: z.string(),
  text: z.string(),
  authorId: z.string().nullable(),
  authorName: z.string(),
  createdAt: z.string(),
});
export type ConversationNote = z.infer<typeof conversationNoteSchema>;

/**
 * The facilitators' live stream's `note` event: a note was added to this conversation (read its notes afresh); null
 * when any may have been (the server may have missed signals).
 */
export const liveNoteSchema = z.object({ conversation: z.string().nullable() });
export type LiveNote = z.infer<typeof liveNoteSchema>;

/** Body of PUT /api/admin/conversations/{userId}/assignee: hand it to an operator, or to nobody. */
export const assigneeInputSchema = z.object({ operatorId: z.string().min(1).max(100).nullable() });
export type AssigneeInput = z.infer<typeof assigneeInputSchema>;

/** GET /api/admin/operators: whom a conversation can be handed to. */
export const operatorSchema = z.object({ userId: z.string(), name: z.string() });
export type Operator = z.infer<typeof operatorSchema>;
