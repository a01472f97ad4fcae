import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, forbidden, unauthorized } from "../../errors.ts";
import { accessTokenOf, operatorRoleOf } from "../auth/guards.ts";
import type { LiveHub } from "./live-hub.ts";

const HEARTBEAT_MS = 25_000;
/** How long a browser waits before reconnecting (EventSource `retry:`). */
const RETRY_MS = 1500;

/**
 * Server-Sent Events. EventSource cannot set headers, so this endpoint alone also takes the token
 * as `?access_token=`. Every event carries the message id; a reconnecting EventSource sends it back
 * as Last-Event-ID (or a client passes `?after=`), and the hub replays what came after it from the
 * database before going live: no gap, no duplicate. The token is checked before anything is sent.
 */
export async function openLiveStream(
  request: FastifyRequest,
  reply: FastifyReply,
  hub: LiveHub,
  scope: "own" | "all",
  streams: Set<() => void>,
) {
  const query = request.query as Record<string, string | undefined>;
  const token = accessTokenOf(request) ?? (query.access_token || null);
  if (!token) throw unauthorized("Please log in.");
  const { tokens, sessions } = request.server.deps.auth;
  const claims = await tokens.verify(token);
  if (!(await sessions.isActive(claims.session_id))) throw new AppError("unauthorized", "Session not found");
  if (scope === "all" && !operatorRoleOf(claims)) throw forbidden("Operators only");
  const after = cursorOf(request.headers["last-event-id"], query.after);

  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  raw.write(`retry: ${RETRY_MS}\n\n`);
  let closed = false;
  let remove: (() => void) | null = null;
  // Keeps proxies from timing the stream out, and ends it once the session is signed out or the token
  // expires; the browser then reconnects with its current token.
  const heartbeat = setInterval(() => {
    if (typeof claims.exp === "number" && claims.exp * 1000 <= Date.now()) return end();
    raw.write(": ping\n\n");
    sessions.isActive(claims.session_id).then(
      (active) => {
        if (!active) end();
      },
      () => undefined,
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    remove?.();
    streams.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  streams.add(end);
  raw.on("close", end);
  raw.on("error", end);

  // A facilitator's view of one conversation follows only it (`?conversation=<user id>`), so its replay
  // after a reconnect reads that conversation, not every message since.
  const only = scope === "all" && query.conversation ? query.conversation : null;
  const conn = {
    userId: scope === "all" ? only : claims.sub,
    lastSentId: 0,
    send(frame: string) {
      if (!closed) raw.write(frame);
    },
    cork: () => raw.cork(),
    uncork: () => raw.uncork(),
  };
  try {
    remove = await hub.connect(conn, after);
  } catch (error) {
    request.log.error({ err: error }, "live stream replay failed");
    end();
    return;
  }
  if (closed) {
    remove();
    return;
  }
  // Tells the client the replay is done and what it has seen, so it can show "up to date".
  raw.write(`event: ready\ndata: ${JSON.stringify({ lastId: String(conn.lastSentId) })}\n\n`);
}

function cursorOf(lastEventId: string | string[] | undefined, after: string | undefined): number | null {
  const values = [Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, after]
    .filter((v): v is string => typeof v === "string" && /^\d{1,15}$/.test(v))
    .map(Number);
  return values.length ? Math.max(...values) : null;
}
