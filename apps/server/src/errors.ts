import type { ErrorCode } from "@hikaya/contracts";
import type { z } from "zod";

/** HTTP status for each error code: the one place codes meet HTTP. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  uri_too_long: 414,
  request_timeout: 408,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  user_already_exists: 422,
  invalid_credentials: 400,
  weak_password: 422,
  invalid_phone: 400,
  story_locked: 403,
  story_out_of_order: 409,
  passwords_do_not_match: 400,
  invalid_otp: 400,
  otp_expired: 400,
  token_expired: 401,
  incorrect_password: 400,
  too_many_attempts: 429,
  invalid_username: 400,
  phone_in_use: 422,
  account_blocked: 403,
  mfa_required: 403,
  mfa_invalid_code: 400,
  search_too_long: 400,
  invite_invalid: 400,
  no_phone_number: 422,
  operator_account: 409,
  media_unreadable: 415,
  voice_too_long: 422,
  video_too_long: 422,
  video_too_large: 422,
  video_failed: 409,
  not_an_operator: 400,
};

/**
 * A failure the product expects (bad input, no permission, missing record). Services throw these;
 * the error handler turns them into HTTP answers. Anything else is a bug and answers 500 without detail.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = STATUS_BY_CODE[code];
    this.details = details;
  }
}

export const badRequest = (message: string, details?: unknown) => new AppError("bad_request", message, details);
export const unauthorized = (message = "Authentication required") => new AppError("unauthorized", message);
export const forbidden = (message = "You do not have access to this resource") => new AppError("forbidden", message);
export const notFound = (message = "Not found") => new AppError("not_found", message);
export const conflict = (message: string) => new AppError("conflict", message);
/** 429 with Retry-After: a rate limit or a cap (write limits, live streams per person). */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError("rate_limited", "Too many requests. Please wait a moment and try again.", { retryAfterSeconds });

/**
 * 503 with Retry-After: the server cannot answer now but will soon (the database busy with another process's
 * write). Nothing was changed, so the same request may simply be sent again.
 */
export const serviceUnavailable = (retryAfterSeconds: number, message = "The service is busy. Please try again in a moment.") =>
  new AppError("service_unavailable", message, { retryAfterSeconds });

/**
 * Parses input a service was handed (already checked at the HTTP edge, or mapped from another API's body): a
 * failure is the same `validation_failed` the edge gives, one issue per field with zod's reason code, so the
 * console can say which field and why in the operator's language.
 */
export function validated<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: `/${i.path.join("/")}`, message: i.message, reason: i.code }));
  const first = issues[0];
  throw new AppError("validation_failed", `body${first?.path.replaceAll("/", ".")}: ${first?.message}`, { issues });
}
