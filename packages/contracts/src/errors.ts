import { z } from "zod";

/**
 * The closed list of error codes the server answers with. The web app turns a code into text in the
 * person's language; it never shows raw server English. Add codes here, never ad hoc in a module.
 */
export const ERROR_CODES = [
  "bad_request",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "range_not_satisfiable",
  "uri_too_long",
  "request_timeout",
  "headers_too_large",
  "rate_limited",
  "internal_error",
  "service_unavailable",
  // The four translated server messages of spec section 8.
  "user_already_exists",
  "invalid_credentials",
  "weak_password",
  "invalid_phone",
  // Program rules.
  "story_locked",
  "story_out_of_order",
  "passwords_do_not_match",
  "invalid_otp",
  "otp_expired",
  "token_expired",
  // Accounts.
  "incorrect_password",
  "too_many_attempts",
  "invalid_username",
  "phone_in_use",
  "account_blocked",
  /** The account has a verified authenticator factor and this session has not passed it (GoTrue's aal2 rule). */
  "mfa_required",
  /** The authenticator code given with the request is wrong or already used. */
  "mfa_invalid_code",
  // The console.
  "search_too_long",
  "invite_invalid",
  "no_phone_number",
  "operator_account",
  // Uploaded media, measured before they are accepted (server: modules/media/admission.ts).
  "media_unreadable",
  "voice_too_long",
  "video_too_long",
  "video_too_large",
  /** A story whose video failed processing is not published; `details.failure` is the reason (MEDIA_FAILURES). */
  "video_failed",
  "not_an_operator",
] as const;

export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** JSON body of every non-envelope error answer under /api and /storage. */
export const errorBodySchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The spec's four server messages (section 8), matched by code in the client, not by English text. */
export const TRANSLATED_SERVER_MESSAGES = {
  user_already_exists: "User already registered",
  invalid_credentials: "Invalid login credentials",
  weak_password: "Password should be at least 6 characters.",
  invalid_phone: "Invalid phone number format (E.164 required)",
} as const satisfies Partial<Record<ErrorCode, string>>;
