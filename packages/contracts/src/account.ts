import { z } from "zod";
import { LANGUAGES } from "./constants.ts";
import { normalizeDigits } from "./digits.ts";

/**
 * A signed-in person's own account under /api/account (plain JSON, `Authorization: Bearer`; errors are
 * the shared `{ code, message, details }`). Changing the login phone takes a code sent to the new
 * number; deleting the account takes the password.
 *
 *   GET  /api/account                   → AccountSettings
 *   POST /api/account/preferences       PreferencesRequest → AccountSettings
 *   POST /api/account/phone             PhoneChangeRequest → AccountSettings (pendingPhone set, code sent)
 *   POST /api/account/phone/verify      PhoneVerifyRequest → AccountSettings (phone changed)
 *   POST /api/account/phone/cancel      (no body) → AccountSettings (pendingPhone cleared)
 *   POST /api/account/delete            DeleteAccountRequest → { message }
 */

export const messageChannelSchema = z.enum(["sms", "whatsapp"]);
export type MessageChannel = z.infer<typeof messageChannelSchema>;
export const languageSchema = z.enum(LANGUAGES);

/**
 * How a person watches stories (issue 38): the best rung their connection carries, the lowest rung only, or the
 * sound alone. Stored with the account; never chosen, the browser's `Save-Data: on` makes it "save_data".
 */
export const VIEWING_MODES = ["best", "save_data", "audio_only"] as const;
export const viewingModeSchema = z.enum(VIEWING_MODES);
export type ViewingMode = z.infer<typeof viewingModeSchema>;

export const accountSettingsSchema = z.object({
  userId: z.string(),
  /** The English sign-up's username (the e-mail's local part on the username domain), else null. */
  username: z.string().nullable(),
  /** The phone number the person signs in with, if any. */
  phone: z.object({ countryCode: z.string(), phoneNumber: z.string(), e164: z.string() }).nullable(),
  /** The language SMS and WhatsApp texts are written in. */
  language: languageSchema,
  agreeToReminder: z.boolean(),
  /** When the reminders answer was last given (ISO), null if never recorded. */
  agreeToReminderAt: z.string().nullable(),
  /** How reminders were turned off (at agreeToReminderAt): the stop link, a STOP reply, or this screen; null while on. */
  remindersStoppedVia: z.enum(["link", "reply", "profile"]).nullable(),
  /** The WhatsApp opt-in answer: null until the person answers Yes or No. */
  whatsappOptIn: z.boolean().nullable(),
  whatsappOptInAt: z.string().nullable(),
  /** The chosen viewing mode, else the default this request's `Save-Data` header gives (the answer varies on it). */
  viewingMode: viewingModeSchema,
  /** Whether the person chose `viewingMode` (false: it is the default). */
  viewingModeChosen: z.boolean(),
  /** A phone change waiting for its code. */
  pendingPhone: z.object({ e164: z.string(), channel: messageChannelSchema, expiresAt: z.string() }).nullable(),
});
export type AccountSettings = z.infer<typeof accountSettingsSchema>;

export const preferencesRequestSchema = z
  .object({
    agreeToReminder: z.boolean().optional(),
    whatsappOptIn: z.boolean().optional(),
    language: languageSchema.optional(),
    viewingMode: viewingModeSchema.optional(),
  })
  .strict();
export type PreferencesRequest = z.infer<typeof preferencesRequestSchema>;

export const phoneChangeRequestSchema = z.object({
  /** Dial code ("+962") or ISO code ("JO"). */
  country: z.string().trim().min(1).max(8),
  /** Any digits (Western, Arabic-Indic, Eastern Arabic-Indic), spaces and dashes; normalised on the server. */
  phoneNumber: z.string().trim().min(1).max(40).transform(normalizeDigits),
  channel: messageChannelSchema.default("sms"),
});
export type PhoneChangeRequest = z.input<typeof phoneChangeRequestSchema>;

export const phoneVerifyRequestSchema = z.object({ code: z.string().trim().min(1).max(40).transform(normalizeDigits) });
export type PhoneVerifyRequest = z.infer<typeof phoneVerifyRequestSchema>;

export const deleteAccountRequestSchema = z.object({ password: z.string().min(1).max(1024) });
export type DeleteAccountRequest = z.infer<typeof deleteAccountRequestSchema>;

/**
 * `details` of a `validation_failed` answer: the first refused field and why, so the screen can put the
 * message under that field in the person's language.
 */
export const FIELD_ERROR_REASONS = ["required", "invalid", "too_short", "too_long", "invalid_username", "invalid_phone"] as const;
export const fieldErrorSchema = z.object({ field: z.string(), reason: z.enum(FIELD_ERROR_REASONS) });
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** `details` of a 429 `rate_limited` answer (also sent as the `Retry-After` header). */
export const rateLimitDetailsSchema = z.object({ retryAfterSeconds: z.number().int().nonnegative() });
