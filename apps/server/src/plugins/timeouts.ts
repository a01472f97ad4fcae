import type { Server } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import { sendError } from "./error-handler.ts";

/** An upload must keep arriving at least this fast (Kestrel's MinRequestBodyDataRate): a trickle is cut. */
export const UPLOAD_MIN_BYTES_PER_SECOND = 240;

/** Answers 408 in the app's shape (unless an answer is already out) and closes the connection. */
function cut(request: FastifyRequest, reply: FastifyReply) {
  request.log.info("request body timed out");
  const socket = request.raw.socket;
  if (reply.sent) {
    socket?.destroy();
    return;
  }
  reply.header("connection", "close");
  reply.raw.once("finish", () => socket?.destroy());
  sendError(reply, new AppError("request_timeout", "The request took too long to arrive"));
}

/**
 * How often Node looks for requests past their header deadline. Node notices a deadline only at its next check, so
 * with the check as long as the deadline (what the server was given) slow headers were held up to twice
 * HTTP_HEADERS_TIMEOUT_SECONDS: about 40 s for the documented 20 s. A tenth of the deadline, at most a second,
 * cuts them within 10 % of the figure; the check walks the open connections, cheap at once a second.
 */
export function headersCheckIntervalMs(headersTimeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 10)));
}

/** Takes effect at listen, when Node starts its checks with the server's interval. */
function keepHeadersDeadline(server: Server) {
  // A public property of http.Server that @types/node does not declare (it types only the constructor option).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = headersCheckIntervalMs(
    server.headersTimeout,
  );
}

/**
 * Slow bodies are cut with 408 and the connection closed, instead of being held for ever:
 * - a request body other than an upload must arrive within HTTP_BODY_TIMEOUT_SECONDS;
 * - an upload (a route with a maxBodyBytes in write-limits.ts) may take up to HTTP_UPLOAD_TIMEOUT_SECONDS (Node's
 *   request timeout), but must bring at least UPLOAD_MIN_BYTES_PER_SECOND in every window of
 *   HTTP_BODY_TIMEOUT_SECONDS, measured on the socket so the parser's reading is untouched.
 */
export function installBodyTimeout(app: FastifyInstance, bodyTimeoutMs: number) {
  // Slow headers are Node's to cut (HTTP_HEADERS_TIMEOUT_SECONDS), but only as promptly as it checks: set here, with
  // the other deadlines of a slow client.
  keepHeadersDeadline(app.server);
  // A callback-style hook: most requests have no body, and an async hook would cost them a promise and a tick.
  app.addHook("onRequest", (request, reply, done) => {
    const length = request.headers["content-length"];
    const encoding = request.headers["transfer-encoding"];
    if (!(Number(length ?? 0) > 0) && !(encoding && /chunked/i.test(encoding))) return done();
    const raw = request.raw;
    const socket = raw.socket;
    let timer: NodeJS.Timeout;
    if (request.routeOptions.config?.writeLimit?.maxBodyBytes === undefined) {
      timer = setTimeout(() => {
        if (!raw.complete) cut(request, reply);
      }, bodyTimeoutMs);
    } else {
      const minBytes = (UPLOAD_MIN_BYTES_PER_SECOND * bodyTimeoutMs) / 1000;
      let last = socket?.bytesRead ?? 0;
      timer = setInterval(() => {
        if (raw.complete || !socket) return clearInterval(timer);
        const read = socket.bytesRead;
        if (read - last < minBytes) {
          clearInterval(timer);
          cut(request, reply);
        }
        last = read;
      }, bodyTimeoutMs);
    }
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once("end", clear);
    raw.once("close", clear);
    reply.raw.once("close", clear);
    done();
  });
}
