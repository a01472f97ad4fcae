import type { ErrorCode } from "@hikaya/contracts";
import { AppError } from "../../errors.ts";

/**
 * A failure as Supabase Auth reports it: HTTP status, `error_code` and message. The /auth/v1 plugin
 * sends it in Supabase's shapes; the phone-number API (/api) turns it into an AppError through `appCode`.
 */
export class AuthError extends Error {
  readonly status: number;
  readonly errorCode: string;
  /** The code of the shared list (packages/contracts) when /api reports it. */
  readonly appCode: ErrorCode;
  /** Extra top-level fields Supabase adds (weak_password reasons). */
  readonly extra: Record<string, unknown> | undefined;
  /** OAuth-style errors (`{error, error_description}`), as GoTrue answers some grant failures. */
  readonly oauth: boolean;
  /** A rate limit's wait, sent as `Retry-After` (and as details on /api). */
  retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    errorCode: string,
    message: string,
    options: { appCode?: ErrorCode; extra?: Record<string, unknown>; oauth?: boolean } = {},
  ) {
    super(message);
    this.name = "AuthError";
    this.status = status;
    this.errorCode = errorCode;
    this.appCode = options.appCode ?? defaultAppCode(status);
    this.extra = options.extra;
    this.oauth = options.oauth ?? false;
  }

  toAppError(): AppError {
    return new AppError(
      this.appCode,
      this.message,
      this.retryAfterSeconds === undefined ? undefined : { retryAfterSeconds: this.retryAfterSeconds },
    );
  }
}

function defaultAppCode(status: number): ErrorCode {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 422) return "validation_failed";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "internal_error";
  return "bad_request";
}

// The messages and codes Supabase Auth answers with, in one place.
export const authErrors = {
  weakPassword: () =>
    new AuthError(422, "weak_password", "Password should be at least 6 characters.", {
      appCode: "weak_password",
      extra: { weak_password: { reasons: ["length"] } },
    }),
  invalidPhone: () =>
    new AuthError(400, "validation_failed", "Invalid phone number format (E.164 required)", { appCode: "invalid_phone" }),
  invalidEmail: () => new AuthError(400, "validation_failed", "Unable to validate email address: invalid format"),
  userExists: () => new AuthError(422, "user_already_exists", "User already registered", { appCode: "user_already_exists" }),
  phoneExists: () =>
    new AuthError(422, "phone_exists", "A user with this phone number has already been registered", {
      appCode: "user_already_exists",
    }),
  emailExists: () =>
    new AuthError(422, "email_exists", "A user with this email address has already been registered", {
      appCode: "user_already_exists",
    }),
  invalidCredentials: () =>
    new AuthError(400, "invalid_credentials", "Invalid login credentials", { appCode: "invalid_credentials" }),
  otpInvalid: () => new AuthError(403, "otp_expired", "Token has expired or is invalid", { appCode: "invalid_otp" }),
  /** The try that spent a code: Supabase still says otp_expired; /api tells the person to ask for a new one. */
  otpSpent: () =>
    new AuthError(403, "otp_expired", "Too many wrong codes. Ask for a new code.", { appCode: "too_many_attempts" }),
  refreshNotFound: () => new AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
  refreshAlreadyUsed: () => new AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used"),
  noAuthorization: () => new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token"),
  badJwt: (detail: string) => new AuthError(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${detail}`),
  sessionNotFound: () => new AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist"),
  userNotFoundFromJwt: () => new AuthError(403, "user_not_found", "User from sub claim in JWT does not exist"),
  userNotFound: () => new AuthError(404, "user_not_found", "User not found"),
  notAdmin: () => new AuthError(403, "not_admin", "User not allowed"),
  validation: (message: string) => new AuthError(400, "validation_failed", message),
  overRequestLimit: () => new AuthError(429, "over_request_rate_limit", "Request rate limit reached"),
  overSmsLimit: () =>
    new AuthError(429, "over_sms_send_rate_limit", "For security purposes, you can only request this after a while."),
  overEmailLimit: () => new AuthError(429, "over_email_send_rate_limit", "Email rate limit exceeded"),
  smsSendFailed: () => new AuthError(500, "sms_send_failed", "Error sending confirmation OTP to provider"),
  mfaFactorNotFound: () => new AuthError(404, "mfa_factor_not_found", "Factor not found"),
  mfaVerificationFailed: () => new AuthError(422, "mfa_verification_failed", "Invalid TOTP code entered"),
  mfaChallengeExpired: () =>
    new AuthError(
      422,
      "mfa_challenge_expired",
      "MFA challenge has expired, verify against another challenge or create a new factor",
    ),
  insufficientAal: () => new AuthError(422, "insufficient_aal", "AAL2 required to unenroll verified factor"),
  aal2ToUpdateCredentials: () =>
    new AuthError(401, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled."),
  aal2ToUpdatePhone: () =>
    new AuthError(401, "insufficient_aal", "AAL2 session is required to update phone when MFA is enabled."),
  /** /api answers 403 forbidden: a 401 there would read as "signed out" to the web app. */
  aal2ToChangePassword: () =>
    new AuthError(403, "insufficient_aal", "AAL2 session is required to change the password when MFA is enabled.", {
      appCode: "forbidden",
    }),
  /** The admin API with an admin person's token whose session has not passed their factor. */
  aal2ForAdmin: () =>
    new AuthError(403, "insufficient_aal", "AAL2 session is required to use the admin API when MFA is enabled.", {
      appCode: "mfa_required",
    }),
  /** /api/account/phone and its verify: 403 forbidden, as aal2ToChangePassword. */
  aal2ToChangePhone: () =>
    new AuthError(403, "insufficient_aal", "AAL2 session is required to change the phone when MFA is enabled.", {
      appCode: "forbidden",
    }),
  /** Every core busy hashing passwords and the queue full (password-hasher.ts): try again in a moment. */
  hashingBusy: (retryAfterSeconds: number) => {
    const error = new AuthError(503, "over_request_rate_limit", "The server is busy. Please try again in a moment.", {
      appCode: "service_unavailable",
    });
    error.retryAfterSeconds = retryAfterSeconds;
    return error;
  },
  bannedUser: () => new AuthError(400, "user_banned", "User is banned", { appCode: "account_blocked" }),
};
