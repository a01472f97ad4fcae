import { z } from "zod";
import { thumbnailUrlSchema, videoUrlSchema } from "./admin.ts";

/**
 * One story write, whichever API it comes through: the console's `/api/admin/stories` sends it as is, the spec's
 * `/api/stories` body (title, titleB, url…) is mapped onto it, and the story service validates both with it.
 * Text is trimmed first, so a title of only spaces is empty and refused (validation_failed, issue path `/titleEn`).
 */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !v.includes("\0"), "contains a NUL character");
export const storyTitleSchema = text(200).min(1);
export const storySubtitleSchema = text(400);

export const storyInputSchema = z.object({
  titleEn: storyTitleSchema,
  titleAr: storyTitleSchema,
  subtitleEn: storySubtitleSchema.default(""),
  subtitleAr: storySubtitleSchema.default(""),
  videoUrl: videoUrlSchema,
  /** Without it a new story goes last (of the published ones, or of the drafts). */
  order: z.number().int().min(1).max(100_000).optional(),
  /**
   * A public thumbnail: an uploaded file (the console uploads one after the story exists, `PUT …/thumbnail`) or an
   * https address on a listed video origin.
   */
  thumbnailUrl: thumbnailUrlSchema.nullable().optional(),
  durationSeconds: z.number().positive().max(86_400).nullable().optional(),
  /** False saves a draft (families do not see it). Omitted on create: published, as the spec's API always was. */
  published: z.boolean().optional(),
  /** The version the editor started from (the console always sends it); omitted, the save is not checked. */
  version: z.number().int().min(0).optional(),
});
export type StoryInput = z.input<typeof storyInputSchema>;

/** An update names only what changes (the spec's PUT); the console sends every field. */
export const storyPatchSchema = storyInputSchema.partial().extend({
  subtitleEn: storySubtitleSchema.optional(),
  subtitleAr: storySubtitleSchema.optional(),
});
export type StoryPatch = z.input<typeof storyPatchSchema>;
