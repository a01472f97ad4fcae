import { z } from "zod";
import { LANGUAGES } from "./constants.ts";
import { recordIdSchema } from "./program.ts";

/**
 * The family's keepsake (issue 30): a book of the stories they watched with the voices they chose, printed by
 * the browser, and share links that let a relative listen to one voice (or the whole book) without an account.
 */

const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !v.includes("\0"), "contains a NUL character");

/** A voice in the book: the family's own recording, or a family member's answer to one of the questions. */
export const KEEPSAKE_VOICE_KINDS = ["recording", "answer"] as const;
export type KeepsakeVoiceKind = (typeof KEEPSAKE_VOICE_KINDS)[number];

export const keepsakeVoiceRefSchema = z.object({ kind: z.enum(KEEPSAKE_VOICE_KINDS), id: recordIdSchema });
export type KeepsakeVoiceRef = z.infer<typeof keepsakeVoiceRefSchema>;

export const KEEPSAKE_TITLE_MAX = 120;
export const KEEPSAKE_DEDICATION_MAX = 1000;
export const KEEPSAKE_VOICES_MAX = 500;

/** What the family decides: the book's title, its dedication, and the voices it holds in their order. */
export const keepsakeSettingsSchema = z.object({
  title: text(KEEPSAKE_TITLE_MAX),
  dedication: text(KEEPSAKE_DEDICATION_MAX),
  voices: z.array(keepsakeVoiceRefSchema).max(KEEPSAKE_VOICES_MAX),
});
export type KeepsakeSettings = z.infer<typeof keepsakeSettingsSchema>;

/** How long a share link lives, as the family chooses it. */
export const KEEPSAKE_LINK_EXPIRIES = ["never", "year", "month"] as const;
export const keepsakeShareSchema = z.object({ expiry: z.enum(KEEPSAKE_LINK_EXPIRIES), language: z.enum(LANGUAGES) });
export type KeepsakeShare = z.infer<typeof keepsakeShareSchema>;

/** A live link: where it opens and its QR code (an SVG drawn on the server, so the family's bundle stays small). */
export const keepsakeLinkSchema = z.object({
  id: z.string(),
  /** "book": every voice in the book; "voice": the one voice named by `voice`. */
  scope: z.enum(["book", "voice"]),
  voice: keepsakeVoiceRefSchema.nullable(),
  url: z.string(),
  qrSvg: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
});
export type KeepsakeLink = z.infer<typeof keepsakeLinkSchema>;

export const voiceWordsSchema = z.object({ text: z.string(), language: z.enum(LANGUAGES).nullable() });
export type VoiceWords = z.infer<typeof voiceWordsSchema>;

export const keepsakeVoiceSchema = z.object({
  kind: z.enum(KEEPSAKE_VOICE_KINDS),
  id: z.string(),
  /** The question the voice answers (0-based), null for a recording about the whole story. */
  questionIndex: z.number().int().nullable(),
  speakerNameEn: z.string(),
  speakerNameAr: z.string(),
  /** The family themselves speak: the page names them in its own words, not by a stored name. */
  ownVoice: z.boolean(),
  recordedAt: z.string(),
  durationSeconds: z.number().nullable(),
  included: z.boolean(),
  /** The file is gone from storage: the book leaves the voice out and says so. */
  missing: z.boolean(),
  /** A short-lived signed address to hear it while choosing. */
  audioUrl: z.string(),
  /** The voice's own live share link, if the family shared one. */
  link: keepsakeLinkSchema.nullable(),
  /**
   * What the voice says, as the book prints it: an answer's transcript in the asked language (else the other's),
   * with the language it is in; the family's own words for their recording as they typed them (`language` null).
   */
  words: voiceWordsSchema.nullable(),
  /** A recording's words' version, which their next save names; 0 for an answer (operators write those). */
  wordsVersion: z.number().int(),
});
export type KeepsakeVoice = z.infer<typeof keepsakeVoiceSchema>;

export const keepsakeStorySchema = z.object({
  id: z.string(),
  position: z.number().int(),
  titleEn: z.string(),
  titleAr: z.string(),
  thumbnailUrl: z.string().nullable(),
  questionCount: z.number().int(),
  /** Included voices first, in the family's order, then the ones left out. */
  voices: z.array(keepsakeVoiceSchema),
});
export type KeepsakeStory = z.infer<typeof keepsakeStorySchema>;

/** A relative's message the family put in the book: a reply they showed, or a question they answered. */
export const keepsakeFamilyEntrySchema = z.object({
  id: z.string(),
  name: z.string(),
  text: z.string().nullable(),
  /** The relative's own voice, when they recorded one (a short-lived signed address). */
  audioUrl: z.string().nullable(),
  /** The voice a reply is about. */
  voice: keepsakeVoiceRefSchema.nullable(),
  createdAt: z.string(),
  /** A question's recorded answer (a short-lived signed address) and when it was given. */
  answerUrl: z.string().nullable(),
  answeredAt: z.string().nullable(),
});
export type KeepsakeFamilyEntry = z.infer<typeof keepsakeFamilyEntrySchema>;

export const keepsakeSchema = z.object({
  title: z.string(),
  dedication: z.string(),
  /** The person's name for the book's cover, if they gave one. */
  familyName: z.string().nullable(),
  /** At least one recording of their own: the keepsake opens only then. */
  hasRecordings: z.boolean(),
  /** The stories they watched, in the program's order. */
  stories: z.array(keepsakeStorySchema),
  /** Every live link (book and voices), newest first: the share list. */
  links: z.array(keepsakeLinkSchema),
  /** "Questions from your family" (answered, in the order answered) and the replies the family showed. */
  family: z.object({ questions: z.array(keepsakeFamilyEntrySchema), replies: z.array(keepsakeFamilyEntrySchema) }),
});
export type Keepsake = z.infer<typeof keepsakeSchema>;

export const keepsakeLinkParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const keepsakeUserParamsSchema = z.object({ userId: recordIdSchema });
