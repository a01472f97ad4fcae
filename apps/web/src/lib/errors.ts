import { ApiError } from "./api-client.ts";
import { i18n } from "./i18n.ts";

/**
 * supabase-js auth errors carry Supabase's `code` (error_code) and HTTP status. They map onto the
 * shared codes so a person reads the same translated text whichever way they signed in.
 */
const AUTH_CODE_TO_KEY: Record<string, string> = {
  user_already_exists: "user_already_exists",
  email_exists: "user_already_exists",
  phone_exists: "user_already_exists",
  invalid_credentials: "invalid_credentials",
  weak_password: "weak_password",
  over_request_rate_limit: "rate_limited",
  over_sms_send_rate_limit: "rate_limited",
  over_email_send_rate_limit: "rate_limited",
  otp_expired: "invalid_otp",
  session_expired: "token_expired",
  session_not_found: "token_expired",
  refresh_token_not_found: "token_expired",
  bad_jwt: "token_expired",
  no_authorization: "unauthorized",
  user_banned: "account_blocked",
  insufficient_aal: "mfa_required",
  mfa_verification_failed: "mfa_invalid_code",
  mfa_challenge_expired: "mfa_invalid_code",
};

interface AuthLikeError {
  __isAuthError: true;
  name: string;
  message: string;
  status?: number;
  code?: string;
  retryAfterSeconds?: number;
}

function isAuthLikeError(error: unknown): error is AuthLikeError {
  return typeof error === "object" && error !== null && (error as { __isAuthError?: unknown }).__isAuthError === true;
}

/** The translation key (under `errors.`) for a failure, chosen by its code. */
export function errorKey(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (isAuthLikeError(error)) {
    if (error.name === "AuthRetryableFetchError" && !error.status) return "network";
    const code = error.code ?? "";
    if (AUTH_CODE_TO_KEY[code]) return AUTH_CODE_TO_KEY[code];
    if (code === "validation_failed" && /phone/i.test(error.message)) return "invalid_phone";
    if (code === "validation_failed" && /username/i.test(error.message)) return "invalid_username";
    if (code === "validation_failed") return "validation_failed";
    if (error.status === 429) return "rate_limited";
    if (error.status && error.status >= 500) return "internal_error";
    return "unknown";
  }
  if (error instanceof TypeError) return "network"; // fetch() rejects with a TypeError when offline
  return "unknown";
}

/**
 * The server refused the file itself (too long, unreadable, too large, not audio): sending the same file again can
 * only be refused again, so it is not kept for a retry.
 */
const REFUSED_FILE = new Set<string>(["voice_too_long", "media_unreadable", "payload_too_large", "unsupported_media_type"]);
export const isRefusedFile = (error: unknown) => error instanceof ApiError && REFUSED_FILE.has(error.code);

/** How long the server asked the person to wait before trying again (a rate limit, a locked sign-in), if it said. */
export function retryAfterOf(error: unknown): number | null {
  if (error instanceof ApiError && error.code === "rate_limited") return error.retryAfterSeconds ?? null;
  if (isAuthLikeError(error) && error.status === 429) return error.retryAfterSeconds ?? null;
  return null;
}

/** The text a person sees for any failure, in their language, chosen by error code. */
export function errorText(error: unknown): string {
  const wait = retryAfterOf(error);
  if (wait) return waitText(wait);
  const key = `errors.${errorKey(error)}`;
  // A limit the server names in `details` (a video's longest side, its minutes) fills the text's placeholders.
  const details = error instanceof ApiError && typeof error.details === "object" && error.details ? error.details : {};
  return i18n.exists(key, { ns: "common" }) ? String(i18n.t(key as never, details as never)) : i18n.t("errors.unknown");
}

/** "Too many attempts. Try again in 5 minutes." in the person's language (with its plural forms). */
export function waitText(seconds: number): string {
  return seconds < 60
    ? i18n.t("errors.waitSeconds", { count: Math.max(1, Math.ceil(seconds)) })
    : i18n.t("errors.waitMinutes", { count: Math.ceil(seconds / 60) });
}

/**
 * The refused field of a `validation_failed` (or invalid_phone, incorrect_password) answer and the
 * reason in the person's language, so a screen can show it under that field; null when the server
 * named no field.
 */
export function fieldError(error: unknown): { field: string; text: string } | null {
  if (!(error instanceof ApiError)) return null;
  const details = error.details as { field?: unknown; reason?: unknown } | undefined;
  if (typeof details?.field !== "string") return null;
  const byCode = `errors.${error.code}`;
  const byReason = `fieldErrors.${String(details.reason)}`;
  const key = error.code !== "validation_failed" && i18n.exists(byCode, { ns: "common" }) ? byCode : byReason;
  return {
    field: details.field,
    text: i18n.exists(key, { ns: "common" }) ? String(i18n.t(key as never)) : i18n.t("fieldErrors.invalid"),
  };
}
