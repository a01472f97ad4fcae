import type { FastifyRequest } from "fastify";
import type { RequestMeta } from "../auth/auth.service.ts";
import { languageFromHeader } from "../auth/texts.ts";

/**
 * Who is asking, for the auth module's audit trail, and the origin the links it sends are built from: PUBLIC_URL only,
 * never the Host header (as the auth module does).
 */
export function metaOf(request: FastifyRequest): RequestMeta & { origin: string } {
  const { publicUrl, port } = request.server.deps.config;
  const userAgent = request.headers["user-agent"];
  return {
    ip: request.ip,
    userAgent: typeof userAgent === "string" ? userAgent : null,
    language: languageFromHeader(request.headers["accept-language"]),
    origin: publicUrl ?? `http://localhost:${port}`,
  };
}
