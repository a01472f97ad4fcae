import { z } from "zod";
import type { Language } from "./constants.ts";

/**
 * The words of a voice (issue 39; WCAG 1.2.1, a text alternative for prerecorded audio). A family member's answer
 * has one per language, typed by operators; a family's own recording has the words its storyteller typed.
 */

/** At most this many characters per language: a few minutes of speech with room to spare. */
export const TRANSCRIPT_MAX = 5000;

/** A typed text: trimmed, bounded, and empty (or only spaces) stored as none. */
export const transcriptTextSchema = z
  .string()
  .trim()
  .max(TRANSCRIPT_MAX)
  .refine((v) => !v.includes("\0"), "contains a NUL character")
  .nullable()
  .transform((v) => (v ? v : null));

export const transcriptSchema = z.object({ en: z.string().nullable(), ar: z.string().nullable() });
export type Transcript = z.infer<typeof transcriptSchema>;

export const transcriptInputSchema = z.object({ en: transcriptTextSchema, ar: transcriptTextSchema });
export type TranscriptInput = z.input<typeof transcriptInputSchema>;

export const NO_TRANSCRIPT: Transcript = { en: null, ar: null };

/**
 * The words to show a person reading in `language`: theirs, else the other language's (a text they may still read,
 * or have read to them, beats none), with the language it is in; null when there is none at all.
 */
export function transcriptFor(language: Language, transcript: Transcript | null | undefined) {
  const other: Language = language === "ar" ? "en" : "ar";
  const own = transcript?.[language];
  if (own) return { text: own, language };
  const fallback = transcript?.[other];
  return fallback ? { text: fallback, language: other } : null;
}

/** A recording's words as the storyteller saves them (`PUT /api/recordings/{id}/transcript`), versioned. */
export const recordingTranscriptInputSchema = z.object({
  transcript: transcriptTextSchema,
  /** The version the storyteller edited: a save from an older one is refused (409 stale_version). */
  version: z.number().int().min(0),
});
export type RecordingTranscriptInput = z.input<typeof recordingTranscriptInputSchema>;
