import { z } from "zod";
import { INSTRUCTION_LOCATIONS, type PublicBucket } from "./constants.ts";
import { transcriptInputSchema, transcriptSchema } from "./transcripts.ts";

/** The operator console's API under /api/admin/* (admins only). */

export const UPLOAD_KINDS = ["video", "image", "audio", "pdf"] as const;
export const uploadKindSchema = z.enum(UPLOAD_KINDS);
export type UploadKind = z.infer<typeof uploadKindSchema>;

/** Largest upload the console accepts per kind, in bytes. A 2 GB video is refused with 413 before it is stored. */
export const UPLOAD_LIMITS: Record<UploadKind, number> = {
  video: 1024 * 1024 * 1024,
  image: 10 * 1024 * 1024,
  audio: 50 * 1024 * 1024,
  pdf: 20 * 1024 * 1024,
};

/** What the server accepts for each kind, judged by the file's first bytes, not its name. */
export const UPLOAD_TYPES: Record<UploadKind, readonly string[]> = {
  video: ["video/mp4", "video/webm", "video/quicktime"],
  image: ["image/jpeg", "image/png", "image/webp"],
  audio: [
    "audio/mpeg",
    "audio/mp4",
    "audio/x-m4a",
    "audio/aac",
    "audio/wav",
    "audio/x-wav",
    "audio/ogg",
    "audio/webm",
    "video/webm",
  ],
  pdf: ["application/pdf"],
};

/** What an upload is for decides its kind (what is accepted) and the public bucket it lands in. */
export const UPLOAD_PURPOSES = {
  "story-video": { kind: "video", bucket: "videos" },
  "question-media": { kind: "video", bucket: "question-media" },
  instruction: { kind: "video", bucket: "instructions" },
  image: { kind: "image", bucket: "images" },
  audio: { kind: "audio", bucket: "audio" },
  document: { kind: "pdf", bucket: "documents" },
} as const satisfies Record<string, { kind: UploadKind; bucket: PublicBucket }>;
export type UploadPurpose = keyof typeof UPLOAD_PURPOSES;
export const uploadPurposeSchema = z.enum(Object.keys(UPLOAD_PURPOSES) as [UploadPurpose, ...UploadPurpose[]]);

export const DOCUMENT_KEYS = ["termsAndCondition", "privacyAndPolicy", "greetingAudio"] as const;
export const documentKeySchema = z.enum(DOCUMENT_KEYS);
export type DocumentKey = z.infer<typeof documentKeySchema>;

/**
 * A file in Hikaya's own storage: a public one as returned by an upload, or a story's private media as the
 * console shows it (its reference or a signed link to it).
 */
export const storedPathSchema = z
  .string()
  .max(600)
  .regex(
    /^\/storage\/v1\/object\/(public|authenticated|sign)\/[a-z-]+\/[A-Za-z0-9][A-Za-z0-9._/-]*(\?v=\d+|\?expires=\d+&signature=[A-Za-z0-9_-]+)?$/,
    "must be an uploaded file",
  );

/** A YouTube or Vimeo address: the hosts a story video may always come from (played in their embeds). */
export const YOUTUBE_OR_VIMEO = /^https:\/\/(www\.|m\.)?(youtube\.com|youtu\.be|vimeo\.com|player\.vimeo\.com)\//;

/** An https address (never javascript:, data: or plain http); whether its origin is allowed is the server's check. */
export const httpsUrlSchema = (max: number) =>
  z.url({ protocol: /^https$/, hostname: z.regexes.domain, error: "must be an https address" }).max(max);

/**
 * A story video: an uploaded file, a YouTube / Vimeo address, or an https address on an origin the operator lists in
 * the settings (`videoOrigins`: a CDN serving video files). The server refuses other origins (validation_failed).
 */
export const videoUrlSchema = z.union([storedPathSchema, httpsUrlSchema(600)]);

/** A story thumbnail: an uploaded file, or an https address on a listed video origin (checked by the server). */
export const thumbnailUrlSchema = z.union([storedPathSchema, httpsUrlSchema(2000)]);

/**
 * An origin a story's video or thumbnail may come from (`https://cdn.example.org`): https, no path, no query,
 * written as the browser compares origins (lower case, no default port).
 */
export const videoOriginSchema = z
  .string()
  .trim()
  .max(200)
  .refine((value) => {
    try {
      const url = new URL(value);
      const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
      return url.protocol === "https:" && bare && !value.endsWith("?") && !value.endsWith("#");
    } catch {
      return false;
    }
  }, "must be an https origin like https://cdn.example.org")
  .transform((value) => new URL(value).origin);
export const VIDEO_ORIGINS_MAX = 20;

export const uploadResultSchema = z.object({ path: storedPathSchema, size: z.number(), contentType: z.string() });
export type UploadResult = z.infer<typeof uploadResultSchema>;

const bilingual = (max: number) => z.string().trim().max(max);

export const adminStorySchema = z.object({
  id: z.string(),
  order: z.number().int(),
  titleEn: z.string(),
  titleAr: z.string(),
  subtitleEn: z.string(),
  subtitleAr: z.string(),
  videoUrl: z.string(),
  thumbnailUrl: z.string().nullable(),
  /** The Arabic video and thumbnail, null when none (Arabic families then get the English ones). */
  videoUrlAr: z.string().nullable(),
  thumbnailUrlAr: z.string().nullable(),
  questionCount: z.number().int(),
  watchedCount: z.number().int(),
  updatedAt: z.string(),
  /** Saves so far; a save names the one it edited (`version` in the input) and a stale one is refused (409). */
  version: z.number().int(),
  /** False for a draft: families do not see it, and it sits after every published story (stories.ts). */
  published: z.boolean(),
});
export type AdminStory = z.infer<typeof adminStorySchema>;

/** A page of the console's story list (`GET /api/admin/stories?q&limit&offset`). */
export const adminStoryPageSchema = z.object({
  stories: z.array(adminStorySchema),
  /** How many stories match `q` in all. */
  total: z.number().int(),
});
export type AdminStoryPage = z.infer<typeof adminStoryPageSchema>;

export const adminStoryListQuerySchema = z.object({
  q: z.string().trim().max(200).default(""),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** Reorder: the full new order, plus the order the admin saw, so a concurrent change is refused (409), not merged. */
export const reorderSchema = z.object({
  ids: z.array(z.string()).min(1).max(1000),
  expected: z.array(z.string()).min(1).max(1000),
});
export type ReorderInput = z.infer<typeof reorderSchema>;

export const adminAnswerSchema = z.object({
  id: z.string(),
  questionId: z.string(),
  characterId: z.string(),
  characterNameEn: z.string(),
  characterNameAr: z.string(),
  audio: z.string(),
  order: z.number().int(),
  /** What the voice says, per language (null where none was typed): families read theirs under the player. */
  transcript: transcriptSchema,
  /** Saves so far (stale saves are refused like a story's). */
  version: z.number().int(),
});
export type AdminAnswer = z.infer<typeof adminAnswerSchema>;

export const adminQuestionSchema = z.object({
  id: z.string(),
  storyId: z.string(),
  order: z.number().int(),
  media: z.string(),
  /** The Arabic question video, null when none. */
  mediaAr: z.string().nullable(),
  /** What the question's video says, per language (null where none was typed). */
  transcript: transcriptSchema,
  answers: z.array(adminAnswerSchema),
  /** Saves so far (stale saves are refused like a story's). */
  version: z.number().int(),
});
export type AdminQuestion = z.infer<typeof adminQuestionSchema>;

const editedVersion = z.number().int().min(0).optional();
export const questionInputSchema = z.object({
  media: storedPathSchema,
  /** Both languages' words of the question; left out, the stored ones stay (a new question starts with none). */
  transcript: transcriptInputSchema.optional(),
  version: editedVersion,
});
export const answerInputSchema = z.object({
  characterId: z.string().min(1),
  audio: storedPathSchema,
  /** Both languages' words; left out, the stored ones stay. Empty text is stored as none. */
  transcript: transcriptInputSchema.optional(),
  version: editedVersion,
});
export type AnswerInput = z.input<typeof answerInputSchema>;

/** What moving stories would do to families (`POST /api/admin/stories/reorder/impact`, a dry run). */
export const reorderImpactSchema = z.object({
  /** People whose furthest watched story would move later: stories they never watched would show as watched. */
  affected: z.number().int(),
});
export type ReorderImpact = z.infer<typeof reorderImpactSchema>;
export const reorderImpactInputSchema = z.object({ ids: z.array(z.string()).min(1).max(1000) });

export const publishInputSchema = z.object({ published: z.boolean() });

/**
 * The Arabic file of a story, question or instruction (PUT …/ar): the English one stays the default and the
 * fallback, so null removes the Arabic one and Arabic families get the English file again.
 */
export const arabicStoryVideoInputSchema = z.object({ videoUrl: videoUrlSchema.nullable() });
export type ArabicStoryVideoInput = z.infer<typeof arabicStoryVideoInputSchema>;
export const arabicMediaInputSchema = z.object({ media: storedPathSchema.nullable() });
export type ArabicMediaInput = z.infer<typeof arabicMediaInputSchema>;

export const adminCharacterSchema = z.object({
  id: z.string(),
  key: z.string(),
  nameEn: z.string(),
  nameAr: z.string(),
  thumbnail: z.string().nullable(),
  audio: z.string().nullable(),
  answerCount: z.number().int(),
  /** Saves so far; a save names the one it edited and a stale one is refused (409), as for stories. */
  version: z.number().int(),
});
export type AdminCharacter = z.infer<typeof adminCharacterSchema>;

export const characterInputSchema = z.object({
  nameEn: bilingual(120).min(1),
  nameAr: bilingual(120).min(1),
  thumbnail: storedPathSchema.nullable().default(null),
  audio: storedPathSchema.nullable().default(null),
  /** The version the form started from (the console always sends it); omitted, the save is not checked. */
  version: z.number().int().min(0).optional(),
});
export type CharacterInput = z.input<typeof characterInputSchema>;

export const adminLandingAnswerSchema = z.object({
  id: z.string(),
  characterId: z.string(),
  characterNameEn: z.string(),
  characterNameAr: z.string(),
  audio: z.string(),
  order: z.number().int(),
  /** What the voice says, per language (null where none was typed), as for a story's answers. */
  transcript: transcriptSchema,
  version: z.number().int(),
});
export type AdminLandingAnswer = z.infer<typeof adminLandingAnswerSchema>;

/** Replaces a landing answer's family member and audio; `version` as for characters. */
export const landingAnswerInputSchema = answerInputSchema.extend({ version: z.number().int().min(0).optional() });
export type LandingAnswerInput = z.infer<typeof landingAnswerInputSchema>;

export const adminMediaSchema = z.object({
  instructions: z.array(
    z.object({
      location: z.enum(INSTRUCTION_LOCATIONS),
      media: z.string().nullable(),
      /** The Arabic video, null when none (Arabic families then get `media`). */
      mediaAr: z.string().nullable(),
      updatedAt: z.string().nullable(),
      /** 0 until the first save; a save names the one it replaced and a stale one is refused (409). */
      version: z.number().int(),
    }),
  ),
  documents: z.array(
    z.object({
      key: documentKeySchema,
      path: z.string().nullable(),
      updatedAt: z.string().nullable(),
      /** What the greeting audio says, per language; none for the PDFs. */
      transcript: transcriptSchema,
      version: z.number().int(),
    }),
  ),
});
export type AdminMedia = z.infer<typeof adminMediaSchema>;

export const instructionInputSchema = z.object({ media: storedPathSchema, version: z.number().int().min(0).optional() });
export type InstructionInput = z.infer<typeof instructionInputSchema>;
export const documentInputSchema = z.object({
  path: storedPathSchema,
  /** The greeting's words in both languages; left out, the stored ones stay. */
  transcript: transcriptInputSchema.optional(),
  version: z.number().int().min(0).optional(),
});
export type DocumentInput = z.infer<typeof documentInputSchema>;

export const adminSettingsSchema = z.object({
  titleEn: z.string(),
  titleAr: z.string(),
  primaryColor: z.string(),
  siteUnderMaintenance: z.boolean(),
  /** Origins story videos and thumbnails may come from besides YouTube, Vimeo and this app's storage. */
  videoOrigins: z.array(z.string()),
  updatedAt: z.string().nullable(),
  version: z.number().int(),
});
export type AdminSettings = z.infer<typeof adminSettingsSchema>;

export const settingsInputSchema = z.object({
  titleEn: bilingual(80).min(1),
  titleAr: bilingual(80).min(1),
  primaryColor: z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a colour like #2e9e5b"),
  siteUnderMaintenance: z.boolean(),
  /** Omitted: the listed origins stay as they are. */
  videoOrigins: z.array(videoOriginSchema).max(VIDEO_ORIGINS_MAX).optional(),
  version: z.number().int().min(0).optional(),
});
export type SettingsInput = z.infer<typeof settingsInputSchema>;

export const adminRecordingSchema = z.object({
  id: z.string(),
  storyId: z.string(),
  storyTitleEn: z.string().nullable(),
  storyTitleAr: z.string().nullable(),
  storyOrder: z.number().int().nullable(),
  questionIndex: z.number().int().nullable(),
  /** Admin-only address of the private file: fetch it with the access token. */
  audioUrl: z.string(),
  contentType: z.string(),
  size: z.number(),
  durationSeconds: z.number().nullable(),
  createdAt: z.string(),
});
export type AdminRecording = z.infer<typeof adminRecordingSchema>;

/** Everything the console shows about one person besides the summary of GET /api/users/:id. */
export const adminUserDetailSchema = z.object({
  profile: z.object({
    name: z.string().nullable(),
    city: z.string().nullable(),
    gender: z.string().nullable(),
    ageGroup: z.string().nullable(),
    countryCode: z.string().nullable(),
    phoneNumber: z.string().nullable(),
    fromLandingPage: z.boolean(),
    agreeToReminder: z.boolean(),
    /** When each consent answer was given (ISO), null if never recorded. */
    agreeToReminderAt: z.string().nullable(),
    /** How reminders were turned off: the stop link, a STOP reply, or Edit Profile; null while on. */
    remindersStoppedVia: z.enum(["link", "reply", "profile"]).nullable(),
    whatsappOptIn: z.boolean().nullable(),
    whatsappOptInAt: z.string().nullable(),
    language: z.enum(["en", "ar"]).nullable(),
  }),
  progress: z.array(
    z.object({ storyId: z.string(), order: z.number().int(), titleEn: z.string(), titleAr: z.string(), watchedAt: z.string() }),
  ),
  recordings: z.array(adminRecordingSchema),
  /** What the console's actions need: whether the person is blocked, has a phone for a reset code, works in the console. */
  account: z.object({
    blocked: z.boolean(),
    internationalPhone: z.string().nullable(),
    operatorRole: z.enum(["admin", "facilitator"]).nullable(),
  }),
});
export type AdminUserDetail = z.infer<typeof adminUserDetailSchema>;

export const adminContactSchema = z.object({
  id: z.string(),
  userId: z.string().nullable(),
  name: z.string(),
  phone: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  gender: z.string(),
  message: z.string(),
  handledAt: z.string().nullable(),
  createdAt: z.string(),
});
export type AdminContact = z.infer<typeof adminContactSchema>;

export const analyticsQuerySchema = z.object({
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
});

const dayCount = z.object({ day: z.string(), count: z.number().int() });
export const adminAnalyticsSchema = z.object({
  from: z.string(),
  to: z.string(),
  funnel: z.array(z.object({ step: z.string(), storyOrder: z.number().int().nullable(), count: z.number().int() })),
  signupsPerDay: z.array(dayCount),
  recordingsPerStory: z.array(
    z.object({ storyId: z.string(), order: z.number().int(), titleEn: z.string(), titleAr: z.string(), count: z.number().int() }),
  ),
  messagesPerDay: z.array(dayCount),
  messagesAvailable: z.boolean(),
  recordingsAvailable: z.boolean(),
  /**
   * How fast the team answers: per week (Monday, UTC) in which families began waiting, the median and 90th
   * percentile (nearest rank) of the time from a family's first unanswered message to the team's next reply, over
   * the waits answered; `unanswered` those still waiting. `longestWaiting`: the 10 conversations waiting now, longest first.
   */
  firstResponse: z.object({
    weeks: z.array(
      z.object({
        weekStart: z.string(),
        answered: z.number().int(),
        unanswered: z.number().int(),
        medianSeconds: z.number().nullable(),
        p90Seconds: z.number().nullable(),
      }),
    ),
    longestWaiting: z.array(z.object({ userId: z.string(), name: z.string().nullable(), waitingSince: z.string() })),
  }),
});
export type AdminAnalytics = z.infer<typeof adminAnalyticsSchema>;

export const auditEntrySchema = z.object({
  id: z.number().int(),
  actorId: z.string(),
  actorEmail: z.string().nullable(),
  /** The operator's display name (profile name, else phone), for the console's sentences. */
  actorName: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  /** What the target is called now (a story's title, a family member's or a person's name), null once it is gone. */
  targetNameEn: z.string().nullable(),
  targetNameAr: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

// ─── long lists: cursor paging and search ───────────────────────────────────────────────────────

/**
 * The query of a paged console list: `cursor` is the previous page's `nextCursor` (opaque), `q` a search
 * whose `%`, `_` and `\` match themselves. `q` has no length limit here so a long one can be refused with
 * its own translated code (`search_too_long`) rather than a generic validation failure.
 */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
  q: z.string().optional(),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

export const auditQuerySchema = pageQuerySchema.extend({
  /** An action or an area prefix such as "story." */
  action: z.string().max(60).optional(),
});
export const auditPageSchema = z.object({ entries: z.array(auditEntrySchema), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof auditPageSchema>;

export const contactQuerySchema = pageQuerySchema.extend({ status: z.enum(["open", "handled", "all"]).default("all") });
export const contactPageSchema = z.object({ items: z.array(adminContactSchema), nextCursor: z.string().nullable() });
export type ContactPage = z.infer<typeof contactPageSchema>;

// ─── the console team (operators) ──────────────────────────────────────────────────────────────────

export const OPERATOR_ROLES = ["admin", "facilitator"] as const;
export const operatorRoleSchema = z.enum(OPERATOR_ROLES);
export type OperatorRole = z.infer<typeof operatorRoleSchema>;

export const teamMemberSchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  name: z.string().nullable(),
  role: operatorRoleSchema,
  /**
   * False until the person has joined: confirmed their e-mail or phone and has a password (set on the console's join
   * page, or the one their family account already had). Opening the invitation alone does not count.
   */
  confirmed: z.boolean(),
  lastSignInAt: z.string().nullable(),
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

/**
 * An invitation by e-mail or by phone (exactly one of them). A phone is read with `country` (ISO "JO" or dial code
 * "+962") when given, as the family app's login reads it, so "0791234567" with Jordan works; without it, in full.
 */
export const teamInviteSchema = z
  .object({
    email: z.string().trim().max(320).optional(),
    phone: z.string().trim().max(32).optional(),
    country: z.string().trim().max(8).optional(),
    role: operatorRoleSchema,
  })
  .refine((v) => Boolean(v.email) !== Boolean(v.phone), { message: "give an e-mail or a phone number", path: ["email"] });
export type TeamInvite = z.infer<typeof teamInviteSchema>;

export const teamRoleInputSchema = z.object({ role: operatorRoleSchema });

/**
 * POST /api/team/join (the invitee's first password) and POST /api/team/reset-password (an operator's new one): the
 * e-mail or phone the console link named, the code it carried, and the password.
 */
export const teamJoinSchema = z
  .object({
    email: z.string().trim().max(320).optional(),
    phone: z.string().trim().max(32).optional(),
    code: z.string().trim().min(1).max(64),
    password: z.string().max(1000),
    /** The authenticator app's current code, when the account has a verified factor (else 403 mfa_required). */
    authenticatorCode: z.string().trim().max(16).optional(),
  })
  .refine((v) => Boolean(v.email) !== Boolean(v.phone), { message: "give an e-mail or a phone number", path: ["email"] });
export type TeamJoin = z.infer<typeof teamJoinSchema>;

/** POST /api/team/recover: the console's "forgot password"; a phone is read with `country` as in an invitation. */
export const teamRecoverSchema = z
  .object({
    email: z.string().trim().max(320).optional(),
    phone: z.string().trim().max(32).optional(),
    country: z.string().trim().max(8).optional(),
  })
  .refine((v) => Boolean(v.email) !== Boolean(v.phone), { message: "give an e-mail or a phone number", path: ["email"] });
export type TeamRecover = z.infer<typeof teamRecoverSchema>;

/** POST /api/admin/users/:id/block: block (sessions end, sign-in refused) or unblock a person. */
export const personBlockSchema = z.object({ blocked: z.boolean() });

/** `details` of the 409 a stale save gets: what is stored now, for the console to show. */
export const staleVersionDetailsSchema = z.object({ reason: z.literal("stale_version"), current: z.unknown() });
