import { z } from "zod";
import { videoUrlSchema } from "./admin.ts";
import { AGE_GROUPS, CONTACT_GENDERS, GENDERS, LANGUAGES, type Language } from "./constants.ts";
import { instructionLocationSchema, watchStatusSchema } from "./enums.ts";
import { mediaStreamSchema } from "./media.ts";
import { type StoryInput, type StoryPatch, storyInputSchema, storySubtitleSchema, storyTitleSchema } from "./stories.ts";
import { isIanaTimeZone } from "./time-zones.ts";
import { transcriptSchema } from "./transcripts.ts";

/**
 * The program API (spec sections 3, 4 and 7): stories and progress, questions and answers, profile,
 * content, recordings and analytics. Public API bodies are plain JSON; token API answers sit inside the
 * `{ code, data }` envelope (see envelope.ts).
 */

/** Record ids: UUIDs in practice; plain characters only, so nothing odd ever reaches a query. */
export const recordIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._:-]+$/, "is not a valid id");
const id = recordIdSchema;
/** Free text: no NUL characters, which PostgreSQL cannot store in text. */
const text = () => z.string().refine((v) => !v.includes("\0"), "contains a NUL character");

// ─── Media language ─────────────────────────────────────────────────────────────────────────────────

/**
 * `?lang=en|ar` on the family API's reads (stories, a story, questions, instructions, contents): the language of
 * the media given (video, thumbnail, question and instruction videos). A query parameter rather than
 * Accept-Language or the profile's language: the address itself differs per language, so HTTP caches, the offline
 * service worker and the app's query cache keep each language's answer apart without `Vary`, visitors (the landing
 * video) get it too, and a switch of the app's language takes effect on the next request. Without it: English, as
 * for clients written to the spec.
 */
export const mediaLanguageQuerySchema = z.object({ lang: z.enum(LANGUAGES).optional() });
export type MediaLanguageQuery = z.infer<typeof mediaLanguageQuerySchema>;

/**
 * The file for a language: the Arabic one for Arabic when there is one, else the English (default) one; English
 * falls back to the Arabic one when only that exists (a thumbnail may be missing in English).
 */
export function mediaFor<T extends string | null | undefined>(
  language: Language | undefined,
  english: T,
  arabic: string | null | undefined,
): T | string {
  return language === "ar" ? arabic || english : english || arabic || english;
}

// ─── Stories ────────────────────────────────────────────────────────────────────────────────────────

/**
 * One story. `order` is its place in the program (1, 2, 3 … contiguous). `title`/`subtitle` are English,
 * `titleB`/`subtitleB` Arabic. `_id` repeats `id` because the spec's token-API lists use `_id`.
 * `url` (the video) is left out for a story the caller may not watch yet and for visitors;
 * `watchStatus` is present only when the caller is signed in (spec section 4).
 */
export const storySchema = z.object({
  id: z.string(),
  _id: z.string(),
  order: z.number().int(),
  url: z.string().optional(),
  title: z.string(),
  subtitle: z.string(),
  titleB: z.string(),
  subtitleB: z.string(),
  thumbnailUrl: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  watchStatus: watchStatusSchema.optional(),
  /** Where the signed-in person stopped in it, in whole seconds (one story's answer only; issue 38). */
  positionSeconds: z.number().int().optional(),
  /** Its processed stream, once ready (one story's answer only): what `GET /api/media/stream` would answer. */
  stream: mediaStreamSchema.optional(),
});
export type Story = z.infer<typeof storySchema>;
export const storyListSchema = z.array(storySchema);

export const storyIdParamsSchema = z.object({ id });
export const storyIdQuerySchema = z.object({ id });

/**
 * POST /api/stories (admins). Without `order` the story goes last. The fields are the story service's
 * (`storyInputSchema`, stories.ts) under the spec's names: title = titleEn, titleB = titleAr, url = videoUrl.
 */
export const createStoryBodySchema = z.object({
  order: storyInputSchema.shape.order,
  url: videoUrlSchema,
  title: storyTitleSchema,
  subtitle: storySubtitleSchema.default(""),
  titleB: storyTitleSchema.optional(),
  subtitleB: storySubtitleSchema.optional(),
  thumbnailUrl: storyInputSchema.shape.thumbnailUrl,
  durationSeconds: storyInputSchema.shape.durationSeconds,
  /** False saves a draft that families do not see; published when omitted. */
  published: z.boolean().optional(),
});
export type CreateStoryBody = z.input<typeof createStoryBodySchema>;

/** PUT /api/stories?id= (admins): any subset; `id` in the body, if given, must match the query. */
export const updateStoryBodySchema = z.object({
  id: id.optional(),
  order: storyInputSchema.shape.order,
  url: videoUrlSchema.optional(),
  title: storyTitleSchema.optional(),
  subtitle: storySubtitleSchema.optional(),
  titleB: storyTitleSchema.optional(),
  subtitleB: storySubtitleSchema.optional(),
  thumbnailUrl: storyInputSchema.shape.thumbnailUrl,
  durationSeconds: storyInputSchema.shape.durationSeconds,
  published: z.boolean().optional(),
  /** As in the console: names the version edited, and a stale one is refused (409 stale_version). */
  version: storyInputSchema.shape.version,
});
export type UpdateStoryBody = z.input<typeof updateStoryBodySchema>;

/** The story service's input for a spec-API create (`/api/stories` POST body). */
export function storyInputFromCreateBody(body: z.output<typeof createStoryBodySchema>): StoryInput {
  return {
    titleEn: body.title,
    titleAr: body.titleB || body.title,
    subtitleEn: body.subtitle,
    subtitleAr: body.subtitleB ?? body.subtitle,
    videoUrl: body.url,
    order: body.order,
    thumbnailUrl: body.thumbnailUrl,
    durationSeconds: body.durationSeconds,
    published: body.published,
  };
}

/** The story service's patch for a spec-API update (`/api/stories` PUT body): only what it names. */
export function storyPatchFromUpdateBody(body: z.output<typeof updateStoryBodySchema>): StoryPatch {
  const patch: StoryPatch = {
    titleEn: body.title,
    titleAr: body.titleB,
    subtitleEn: body.subtitle,
    subtitleAr: body.subtitleB,
    videoUrl: body.url,
    order: body.order,
    thumbnailUrl: body.thumbnailUrl,
    durationSeconds: body.durationSeconds,
    published: body.published,
    version: body.version,
  };
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as StoryPatch;
}

/** POST /api/stories/reorder (admins): every story id exactly once, in the new order (1…n). */
export const reorderStoriesBodySchema = z.object({ ids: z.array(id).min(1).max(10_000) });
export type ReorderStoriesBody = z.infer<typeof reorderStoriesBodySchema>;

export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });

// ─── Progress and users ─────────────────────────────────────────────────────────────────────────────

export const watchedStorySchema = z.object({
  _id: z.string(),
  storyId: z.string(),
  order: z.number().int(),
  title: z.string(),
  titleB: z.string(),
  watchedAt: z.string(),
});
export type WatchedStory = z.infer<typeof watchedStorySchema>;

export const watchStoryParamsSchema = z.object({ id, storyId: id });

/** POST /api/users/{id}/watchStory/{storyId}: the caller's progress after the call. */
export const watchStoryResultSchema = z.object({
  storyId: z.string(),
  order: z.number().int(),
  /** True when this call recorded it; false when it was already watched (the call is idempotent). */
  newlyWatched: z.boolean(),
  lastWatchedStoryId: z.number().int(),
  watchedStories: z.array(watchedStorySchema),
});
export type WatchStoryResult = z.infer<typeof watchStoryResultSchema>;

/**
 * POST /api/users/{id}/position/{storyId}: where the person stopped in a story (issue 38), so it resumes there on
 * any device. Players send it every 10 s of playing and on pause or leaving; 0 once the story ended.
 */
export const PLAYBACK_POSITION_MAX_SECONDS = 6 * 3600;
export const playbackPositionBodySchema = z.object({
  seconds: z.number().int().min(0).max(PLAYBACK_POSITION_MAX_SECONDS),
});
export const playbackPositionSchema = z.object({ storyId: z.string(), seconds: z.number().int() });
export type PlaybackPosition = z.infer<typeof playbackPositionSchema>;

/** The spec's User (section 3) plus what the console needs. */
export const userSummarySchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  phoneNumber: z.string().nullable(),
  countryCode: z.string().nullable(),
  /** The login phone in E.164 ("+966501234567"), which the console shows in international form. */
  internationalPhone: z.string().nullable(),
  name: z.string().nullable(),
  fromLandingPage: z.boolean(),
  isAdmin: z.boolean(),
  /** Blocked by an admin: cannot sign in until unblocked. */
  blocked: z.boolean(),
  lastWatchedStoryId: z.number().int(),
  watchedCount: z.number().int(),
  createdAt: z.string(),
  lastSignInAt: z.string().nullable(),
});
export type UserSummary = z.infer<typeof userSummarySchema>;

export const userListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  // Longer searches are refused by the service with its own code (search_too_long), not a generic validation error.
  q: text().trim().optional(),
  /** "true": families only, operators (admins, facilitators) left out: the console's People list. */
  families: z.enum(["true", "false"]).optional(),
});
export const userListSchema = z.object({ items: z.array(userSummarySchema), total: z.number().int() });
export type UserList = z.infer<typeof userListSchema>;

export const userIdParamsSchema = z.object({ id });

// ─── Profile ────────────────────────────────────────────────────────────────────────────────────────

/** Profile (spec section 3). `country` reads '{dial code} {country name}', e.g. '+962 Jordan'. */
export const profileSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  city: z.string().nullable(),
  gender: z.enum(GENDERS).nullable(),
  ageGroup: z.enum(AGE_GROUPS).nullable(),
  country: z.string().nullable(),
  countryCode: z.string().nullable(),
  phoneNumber: z.string().nullable(),
  email: z.string().nullable(),
  watchedStories: z.array(watchedStorySchema),
  lastWatchedStoryId: z.number().int(),
});
export type Profile = z.infer<typeof profileSchema>;

/** POST /api/profile/update (multipart fields; empty ones are left as they are). */
export const profileUpdateFieldsSchema = z.object({
  name: text().trim().max(100).optional(),
  city: text().trim().max(100).optional(),
  gender: z.enum(GENDERS).optional(),
  ageGroup: z.enum(AGE_GROUPS).optional(),
  /**
   * The IANA time zone the person's browser reports (`Intl.DateTimeFormat().resolvedOptions().timeZone`), sent by
   * the app at sign-up and each sign-in so reminders come in the person's daytime; an unknown zone is refused.
   */
  timeZone: z.string().max(64).refine(isIanaTimeZone, "is not an IANA time zone").optional(),
});
export type ProfileUpdateFields = z.infer<typeof profileUpdateFieldsSchema>;

// ─── Questions and answers (token API) ──────────────────────────────────────────────────────────────

export const storyRefBodySchema = z.object({ story: id });
export const questionItemSchema = z.object({
  _id: z.string(),
  url: z.string(),
  index: z.number().int(),
  /** What the question's video says, per language; null where none was typed. */
  transcript: transcriptSchema,
});
export type QuestionItem = z.infer<typeof questionItemSchema>;

export const characterSchema = z.object({
  _id: z.string(),
  /** English name, as the spec names the field; the Arabic one beside it. */
  nameOfFamilyMember: z.string(),
  nameOfFamilyMemberAr: z.string(),
  thumbnail: z.string().nullable(),
});
export const answerItemSchema = z.object({
  _id: z.string(),
  /** The question's id. */
  question: z.string(),
  questionIndex: z.number().int(),
  audio: z.string(),
  character: characterSchema,
  /** What the voice says, per language; null where none was typed. */
  transcript: transcriptSchema,
});
export type AnswerItem = z.infer<typeof answerItemSchema>;

export const landingAnswerSchema = z.object({
  _id: z.string(),
  audio: z.string(),
  nameOfFamilyMember: z.string(),
  nameOfFamilyMemberAr: z.string(),
  thumbnail: z.string().nullable(),
  /** What the voice says, per language (null where none was typed): shown behind "Read" under the bar. */
  transcript: transcriptSchema,
});
export type LandingAnswer = z.infer<typeof landingAnswerSchema>;

// ─── Content ────────────────────────────────────────────────────────────────────────────────────────

export const instructionBodySchema = z.object({ location: instructionLocationSchema });
export const instructionMediaSchema = z.object({ media: z.string().nullable() });

/** GET /api/get/contents: document URLs (PDFs), null when none is uploaded. */
export const contentsSchema = z.object({
  termsAndCondition: z.string().nullable(),
  privacyAndPolicy: z.string().nullable(),
  greetingAudio: z.string().nullable(),
  landingVideo: z.string().nullable(),
});
export type Contents = z.infer<typeof contentsSchema>;

/** POST /api/contactSubmission. */
export const contactSubmissionBodySchema = z.object({
  name: text().trim().min(1, "Please enter your name and a message.").max(200),
  message: text().trim().min(1, "Please enter your name and a message.").max(5000),
  phone: text().trim().max(40).optional().nullable(),
  city: text().trim().max(100).optional().nullable(),
  country: text().trim().max(100).optional().nullable(),
  gender: z.enum(CONTACT_GENDERS).default("Not specified"),
  /**
   * Optional: the same key on a form sent again (after a dropped connection) stores it once and answers the first
   * submission's id. Chosen by the client, one per form content; scoped on the server to the account or address.
   */
  idempotencyKey: z
    .string()
    .min(8)
    .max(100)
    .regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only")
    .optional(),
});
export type ContactSubmissionBody = z.input<typeof contactSubmissionBodySchema>;
export const contactSubmissionResultSchema = z.object({ id: z.string(), createdAt: z.string() });

// ─── Analytics ──────────────────────────────────────────────────────────────────────────────────────

export const ANALYTICS_EVENT_NAMES = ["signup", "landing_video_end", "video_watched"] as const;
export const MAX_ANALYTICS_BATCH = 50;
export const analyticsEventSchema = z.object({
  name: z.enum(ANALYTICS_EVENT_NAMES),
  properties: z
    .record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
    .refine((p) => Object.keys(p).length <= 20, "at most 20 properties")
    .default({}),
  at: z.iso.datetime({ offset: true }).optional(),
});
export const analyticsBatchSchema = z.object({
  events: z.array(analyticsEventSchema).min(1).max(MAX_ANALYTICS_BATCH),
  token: z.string().max(4000).optional(),
});
export type AnalyticsBatch = z.input<typeof analyticsBatchSchema>;
export const analyticsResultSchema = z.object({ accepted: z.number().int() });

// ─── Recordings ─────────────────────────────────────────────────────────────────────────────────────

export const MAX_RECORDING_BYTES = 25 * 1024 * 1024;
export const MAX_RECORDING_SECONDS = 10 * 60;
export const RECORDING_TYPES = ["audio/wav", "audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/aac"] as const;

export const recordingSchema = z.object({
  id: z.string(),
  userId: z.string(),
  storyId: z.string(),
  questionIndex: z.number().int().nullable(),
  contentType: z.enum(RECORDING_TYPES),
  size: z.number().int(),
  durationSeconds: z.number().nullable(),
  createdAt: z.string(),
  /** Authorised route (owner or admin, with the access token), with Range support. */
  audioUrl: z.string(),
  /** The same audio by a short-lived signed link (1 hour), for an <audio> element that cannot send headers. */
  signedUrl: z.string(),
  /** The words the storyteller typed for it, null when none; `version` counts those saves. */
  transcript: z.string().nullable(),
  version: z.number().int(),
});
export type Recording = z.infer<typeof recordingSchema>;
export const recordingListSchema = z.array(recordingSchema);
export const recordingIdParamsSchema = z.object({ id });
export const recordingAudioQuerySchema = z.object({
  expires: z.coerce.number().int().positive().optional(),
  signature: z.string().max(200).optional(),
});
export const RECORDING_LINK_TTL_SECONDS = 3600;
