import type { ErrorBody } from "@hikaya/contracts";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { isDatabaseBusy } from "../db/dialect.ts";
import { AppError, serviceUnavailable } from "../errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Token API routes answer errors inside the spec's `{ code, data }` envelope. */
    envelope?: boolean;
  }
}

/** Fastify's own error codes that mean "the request was bad", mapped to ours. */
const FASTIFY_CODES: Record<string, AppError["code"]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_REQ_FILE_TOO_LARGE: "payload_too_large",
  FST_FILES_LIMIT: "payload_too_large",
  FST_PARTS_LIMIT: "payload_too_large",
  FST_FIELDS_LIMIT: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_INVALID_MULTIPART_CONTENT_TYPE: "unsupported_media_type",
};

/**
 * How long a client should wait after the database was busy. The server itself waits only a second
 * (db/database.ts SQLITE_BUSY_TIMEOUT_MS, stalling every request meanwhile); a backup or a migration holds the
 * lock for seconds, so the client waits out the rest rather than the server.
 */
export const DATABASE_BUSY_RETRY_SECONDS = 5;

/** Turns any thrown value into the public error; unexpected ones become a bare 500. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  // Failures that know their public code (the auth module's AuthError) become it, so no module has to map them.
  const known = error as { toAppError?: unknown } | null;
  if (typeof known?.toAppError === "function") {
    const mapped: unknown = known.toAppError();
    if (mapped instanceof AppError) return mapped;
  }
  const e = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(e)) {
    const first = e.validation[0];
    const where = first?.instancePath
      ? `${e.validationContext ?? "body"}${first.instancePath.replaceAll("/", ".")}`
      : (e.validationContext ?? "body");
    return new AppError("validation_failed", `${where}: ${first?.message ?? "is invalid"}`, {
      // `reason` is zod's issue code (too_small, too_big, invalid_format…): the console words it per field.
      issues: e.validation.map((v) => ({ path: v.instancePath, message: v.message, reason: v.keyword })),
    });
  }
  const mapped = e?.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new AppError(mapped, e.message);
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError(e.statusCode === 413 ? "payload_too_large" : "bad_request", e.message);
  }
  if (isDatabaseBusy(error)) {
    request.log.warn({ err: error }, "database busy: another process holds the write lock");
    return serviceUnavailable(DATABASE_BUSY_RETRY_SECONDS);
  }
  request.log.error({ err: error }, "unhandled error");
  return new AppError("internal_error", "Something went wrong on our side. Please try again.");
}

export function sendError(reply: FastifyReply, error: AppError) {
  const wait = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (typeof wait === "number") reply.header("retry-after", String(wait));
  if (reply.request.routeOptions.config?.envelope) {
    return reply.status(error.status).send({ code: error.status, data: error.message, errorCode: error.code });
  }
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.details !== undefined && error.status < 500) body.details = error.details;
  return reply.status(error.status).send(body);
}

/** Installed on the root instance so every route, in every plugin, shares it. */
export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => sendError(reply, toAppError(error, request)));
}
