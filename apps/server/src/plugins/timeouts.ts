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
 * Slow bodies are cut with 408 and the connection closed, instead of being held for ever:
 * - a request body other than an upload must arrive within HTTP_BODY_TIMEOUT_SECONDS;
 * - an upload (a route with a maxBodyBytes in write-limits.ts) may take up to HTTP_UPLOAD_TIMEOUT_SECONDS (Node's
 *   request timeout), but must bring at least UPLOAD_MIN_BYTES_PER_SECOND in every window of
 *   HTTP_BODY_TIMEOUT_SECONDS, measured on the socket so the parser's reading is untouched.
 */
export function installBodyTimeout(app: FastifyInstance, bodyTimeoutMs: number) {
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
