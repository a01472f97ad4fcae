import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";
import { sendError } from "./error-handler.ts";

/**
 * A request body (other than an upload) must arrive within HTTP_BODY_TIMEOUT_SECONDS: a client that trickles
 * its body a byte at a time is answered 408 and its connection closed, instead of being held for ever. Uploads
 * (routes with a maxBodyBytes in write-limits.ts) are bounded by the server's request timeout instead,
 * HTTP_UPLOAD_TIMEOUT_SECONDS, which Node enforces on every request.
 */
export function installBodyTimeout(app: FastifyInstance, bodyTimeoutMs: number) {
  app.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.config?.writeLimit?.maxBodyBytes !== undefined) return;
    const length = Number(request.headers["content-length"] ?? 0);
    const chunked = /chunked/i.test(String(request.headers["transfer-encoding"] ?? ""));
    if (!(length > 0) && !chunked) return;
    const raw = request.raw;
    const timer = setTimeout(() => {
      if (raw.complete) return;
      request.log.info("request body timed out");
      if (!reply.sent) {
        reply.header("connection", "close");
        sendError(reply, new AppError("request_timeout", "The request took too long to arrive"));
      }
      reply.raw.once("finish", () => raw.socket?.destroy());
    }, bodyTimeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once("end", clear);
    raw.once("close", clear);
    reply.raw.once("close", clear);
  });
}
