import type { Socket } from "node:net";
import type { ErrorBody, ErrorCode } from "@hikaya/contracts";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import { sendError } from "./error-handler.ts";
import { inputProblem } from "./input-rules.ts";

// Not `import … from "node:http"`: an ES import of node:http builds its module facade, which reads every export
// and so loads Node's bundled undici (fetch, WebSocket), about 4 % of start-up, for one table of status texts.
const { STATUS_CODES } = process.getBuiltinModule("node:http");

/**
 * Failures Fastify's router meets before any route or hook runs (a bad percent-escape, a path parameter
 * over maxParamLength) answered in the app's error shape. The URL is never echoed back.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") return sendError(reply, new AppError("uri_too_long", "The address is too long"));
  if (error.code === "FST_ERR_BAD_URL") return sendError(reply, new AppError("bad_request", "The address is not valid"));
  return sendError(reply, new AppError("bad_request", "The request is not valid"));
}

/**
 * Failures Node's HTTP parser meets (malformed request line or headers, headers over the size limit, the request
 * timeout): there is no request object yet, so the answer is written to the socket, in the app's error shape.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, body]: [number, ErrorBody] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, { code: "request_timeout", message: "The request took too long to arrive" }]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, { code: "headers_too_large", message: "The request headers are too large" }]
        : [400, { code: "bad_request", message: "The request could not be read" }];
  this.log.debug({ err: error }, "client error");
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/**
 * One rule for every route, before validation: no text the databases cannot store and no absurd nesting, in the
 * path, the query or the body. The error carries statusCode 400 too, so /auth/v1 answers it in its own (Supabase) shape.
 */
export function installInputRules(app: FastifyInstance) {
  app.addHook("preValidation", (request, _reply, done) => {
    const problem =
      inputProblem(request.params, "params") ?? inputProblem(request.query, "query") ?? inputProblem(request.body, "body");
    done(problem ? Object.assign(new AppError("bad_request", problem), { statusCode: 400 }) : undefined);
  });
}

/**
 * TRUST_PROXY for Fastify: a hop count becomes "trust the nearest n hops" (proxy-addr's meaning), so the client
 * address is the one the n-th load balancer saw; anything to the left in X-Forwarded-For is the client's to forge.
 */
export function trustProxyOption(
  value: boolean | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== "number") return value;
  return (_address, hop) => hop < value;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  408: "request_timeout",
  409: "conflict",
  413: "payload_too_large",
  414: "uri_too_long",
  415: "unsupported_media_type",
  416: "range_not_satisfiable",
  429: "rate_limited",
  431: "headers_too_large",
  503: "service_unavailable",
};

/**
 * The last guard of the one error shape: an error a plugin answers on its own in plain text (a CORS preflight
 * refused by @fastify/cors, say) is rewritten into the app's shape, or Supabase's under /auth/v1.
 */
export function installErrorShapeGuard(app: FastifyInstance) {
  // Callback style: nearly every answer is not an error and passes through without a promise.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (reply.statusCode < 400 || request.method === "HEAD") return done(null, payload);
    done(null, errorShaped(request, reply, payload));
  });
}

function errorShaped(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const type = String(reply.getHeader("content-type") ?? "");
  if (type.includes("json") || (typeof payload !== "string" && !Buffer.isBuffer(payload))) return payload;
  const text = String(payload ?? "").slice(0, 200);
  const status = reply.statusCode;
  reply.header("content-type", "application/json; charset=utf-8");
  reply.removeHeader("content-length");
  if (request.url.startsWith("/auth/v1")) {
    return JSON.stringify({ code: status, error_code: status === 404 ? "not_found" : "validation_failed", msg: text });
  }
  const body: ErrorBody = { code: CODE_BY_STATUS[status] ?? (status >= 500 ? "internal_error" : "bad_request"), message: text };
  return JSON.stringify(body);
}
