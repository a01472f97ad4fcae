import { z } from "zod";
import { LANGUAGES } from "./constants.ts";

/**
 * Story reminders and push notifications.
 *
 * Operators (admin role, `/api/admin/reminders`):
 *   GET  /settings        → ReminderSettings
 *   PUT  /settings        ReminderSettingsInput → ReminderSettings (audited)
 *   POST /preview         ReminderPreviewRequest → { text }
 *   POST /run             (no body) → ReminderRunResult: sends the reminders due now (audited)
 *   GET  /queue           ?status&before&limit → ReminderQueuePage
 * A person (signed in, `/api/push`):
 *   GET  /key             → { publicKey } (VAPID)
 *   POST /subscription    PushSubscriptionInput → { ok }
 *   POST /unsubscribe     { endpoint? } → { ok } (no endpoint: every device of the person)
 * An operator's console browser ("Notify me on this device", `/api/admin/push`, admins and facilitators):
 *   POST /subscription    OperatorPushSubscriptionInput → { ok } (families' messages while no console is open)
 *   POST /unsubscribe     { endpoint } → { ok }
 * Without signing in:
 *   GET/POST /api/reminders/stop?token=…   the signed stop link (HTML page in the person's language)
 *   POST     /api/reminders/inbound/twilio  the provider's inbound webhook ("STOP")
 */

export const REMINDER_PLACEHOLDERS = ["name", "story", "link", "stopLink"] as const;
export type ReminderPlaceholder = (typeof REMINDER_PLACEHOLDERS)[number];

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (24-hour)");

export const reminderTemplatesSchema = z.object({
  en: z.string().trim().min(1).max(1000),
  ar: z.string().trim().min(1).max(1000),
});
export type ReminderTemplates = z.infer<typeof reminderTemplatesSchema>;

export const reminderSettingsInputSchema = z.object({
  enabled: z.boolean(),
  /** Hours after the next story unlocks before the first reminder (0: right away). */
  firstAfterHours: z
    .number()
    .int()
    .min(0)
    .max(24 * 365),
  /** Hours after a reminder before the next one for the same story. */
  repeatAfterHours: z
    .number()
    .int()
    .min(0)
    .max(24 * 365),
  /** Reminders for one story at most (0: none). */
  maxPerStory: z.number().int().min(0).max(20),
  /** The daytime window in the person's time zone; a window may run past midnight (22:00–06:00). */
  windowStart: hhmm,
  windowEnd: hhmm,
  templates: reminderTemplatesSchema.optional(),
  /**
   * The `version` the form started from (the console always sends it): a save made after another one is refused
   * with 409 `conflict` and the stored rules in `details.current`. Omitted, the save is not checked.
   */
  version: z.number().int().min(0).optional(),
});
export type ReminderSettingsInput = z.infer<typeof reminderSettingsInputSchema>;

export const reminderSettingsSchema = reminderSettingsInputSchema.extend({
  templates: reminderTemplatesSchema,
  placeholders: z.array(z.enum(REMINDER_PLACEHOLDERS)),
  updatedAt: z.string().nullable(),
  /** Saves so far (0: the defaults, never saved). */
  version: z.number().int(),
});
export type ReminderSettings = z.infer<typeof reminderSettingsSchema>;

export const reminderPreviewRequestSchema = z.object({
  language: z.enum(["en", "ar"]),
  /** A template not yet saved; the saved one when absent. */
  template: z.string().max(1000).optional(),
});
export const reminderPreviewSchema = z.object({ text: z.string() });

export const reminderRunResultSchema = z.object({
  sent: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
});
export type ReminderRunResult = z.infer<typeof reminderRunResultSchema>;

/** due: waiting for its time or a retry; sending: claimed by a replica; sent; failed (after the retries); stopped: the person said no. */
export const REMINDER_JOB_STATUSES = ["due", "sending", "sent", "failed", "stopped", "skipped"] as const;
export const reminderJobStatusSchema = z.enum(REMINDER_JOB_STATUSES);
export type ReminderJobStatus = z.infer<typeof reminderJobStatusSchema>;

export const reminderJobSchema = z.object({
  id: z.string(),
  userId: z.string(),
  name: z.string().nullable(),
  storyId: z.string(),
  storyTitle: z.string().nullable(),
  /** 1 for the first reminder of this story, 2 for the next… */
  sequence: z.number().int(),
  status: reminderJobStatusSchema,
  channel: z.string().nullable(),
  attempts: z.number().int(),
  dueAt: z.string(),
  nextTryAt: z.string(),
  sentAt: z.string().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
});
export type ReminderJob = z.infer<typeof reminderJobSchema>;

export const reminderQueueQuerySchema = z.object({
  status: reminderJobStatusSchema.optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});
export const reminderQueuePageSchema = z.object({
  jobs: z.array(reminderJobSchema),
  /** Pass as `before` for the next page; null on the last one. */
  nextBefore: z.string().nullable(),
  counts: z.record(reminderJobStatusSchema, z.number().int()),
});
export type ReminderQueuePage = z.infer<typeof reminderQueuePageSchema>;

export const pushSubscriptionInputSchema = z.object({
  endpoint: z.url().max(2000),
  keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionInputSchema>;

/** An operator's console browser: the console's language words its pushes ("New message from …"). */
export const operatorPushSubscriptionInputSchema = pushSubscriptionInputSchema.extend({ language: z.enum(LANGUAGES) });
export type OperatorPushSubscriptionInput = z.infer<typeof operatorPushSubscriptionInputSchema>;
export const operatorPushUnsubscribeSchema = z.object({ endpoint: z.url().max(2000) });

export const pushKeySchema = z.object({ publicKey: z.string() });
export const pushUnsubscribeSchema = z.object({ endpoint: z.url().max(2000).optional() });

/** Waiting counts for the chrome: the person's unread facilitator messages, the console's conversations waiting for a reply. */
export const unreadCountSchema = z.object({ count: z.number().int() });
