import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ErrorBody } from "@hikaya/contracts";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import { sendError } from "./error-handler.ts";
import { inputProblem } from "./input-rules.ts";

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
  app.addHook("preValidation", async (request) => {
    const problem =
      inputProblem(request.params, "params") ?? inputProblem(request.query, "query") ?? inputProblem(request.body, "body");
    if (problem) throw Object.assign(new AppError("bad_request", problem), { statusCode: 400 });
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
