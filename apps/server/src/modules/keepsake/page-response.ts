import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/**
 * A server-rendered page (listening, thank-you, refusal), sent as a stream: the error-shape guard
 * (plugins/http-edge.ts) turns a string 4xx into JSON, and a relative must read a page, not an error body.
 */
export const sendPage = (reply: FastifyReply, status: number, html: string) =>
  reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .send(Readable.from([Buffer.from(html)]));
