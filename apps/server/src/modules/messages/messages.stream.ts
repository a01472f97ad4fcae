import type { ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, forbidden, unauthorized } from "../../errors.ts";
import { accessTokenOf, operatorRoleOf } from "../auth/guards.ts";
import type { LiveConnection, LiveHub } from "./live-hub.ts";

const HEARTBEAT_MS = 25_000;
/** How long a browser waits before reconnecting (EventSource `retry:`). */
const RETRY_MS = 1500;

/** One HTTP/1.1 chunk (the response is chunked, as Node would frame it), as bytes ready for the socket. */
const chunk = (text: string) => {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]);
};
const PING_TEXT = ": ping\n\n";
const PING = chunk(PING_TEXT);
const LAST_CHUNK = Buffer.from("0\r\n\r\n");
const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * The hub hands every connection of one event the same frame string, one connection after another; framing and
 * encoding it once here means a delivery is a single socket write of shared bytes, whatever the fan-out.
 */
let lastFrame = "";
let lastBytes = chunk("");
function bytesOf(frame: string): Buffer {
  if (frame !== lastFrame) {
    lastFrame = frame;
    lastBytes = chunk(frame);
  }
  return lastBytes;
}

const STREAM = Symbol("hikaya.liveStream");
type StreamSocket = Socket & { [STREAM]?: LiveStream };

function endStreamOfSocket(this: StreamSocket) {
  this[STREAM]?.end();
}

/**
 * One open stream. Thousands stay open for hours, so each is one small object writing straight to its socket:
 * no timer, no closures, no Node/Fastify response buffering per stream (the response head and the chunk framing
 * are written here, in the format ServerResponse would use). A response without a TCP socket of its own (an
 * injected request) goes through ServerResponse as usual.
 */
class LiveStream implements LiveConnection {
  userId: string | null;
  lastSentId = 0;
  replaying: LiveConnection["replaying"] = null;
  closed = false;
  remove: (() => void) | null = null;
  readonly sessionId: string;
  /** Token expiry, ms since the epoch (0: none). */
  readonly expiresAt: number;
  readonly #streams: LiveStreams;
  readonly #socket: StreamSocket | null;
  readonly #raw: ServerResponse;

  constructor(
    streams: LiveStreams,
    raw: ServerResponse,
    socket: Socket | null,
    who: { userId: string | null; sessionId: string; expiresAt: number },
  ) {
    this.#streams = streams;
    this.#raw = raw;
    this.#socket = socket;
    this.userId = who.userId;
    this.sessionId = who.sessionId;
    this.expiresAt = who.expiresAt;
  }

  send(frame: string) {
    if (this.closed) return;
    if (this.#socket) this.#socket.write(bytesOf(frame));
    else this.#raw.write(frame);
  }

  ping() {
    if (this.closed) return;
    if (this.#socket) this.#socket.write(PING);
    else this.#raw.write(PING_TEXT);
  }

  cork() {
    this.#socket?.cork();
  }

  uncork() {
    this.#socket?.uncork();
  }

  /** Ends the response properly (last chunk) and closes the connection; the browser then reconnects. */
  end() {
    if (this.closed) return;
    this.closed = true;
    this.remove?.();
    this.#streams.delete(this);
    const socket = this.#socket;
    if (!socket) {
      if (!this.#raw.writableEnded) this.#raw.end();
      return;
    }
    socket.off("close", endStreamOfSocket);
    socket[STREAM] = undefined;
    if (!socket.destroyed && socket.writable) socket.end(LAST_CHUNK);
    else socket.destroy();
  }
}

/**
 * The open streams of this process. One timer for all of them: it keeps proxies from timing the streams out and
 * ends each once its session is signed out or its token expires; the browser then reconnects with its current
 * token (or is refused).
 */
export class LiveStreams {
  readonly #open = new Set<LiveStream>();
  readonly #isActive: (sessionId: string) => Promise<boolean>;
  readonly #timer: NodeJS.Timeout;

  constructor(isActive: (sessionId: string) => Promise<boolean>, heartbeatMs = HEARTBEAT_MS) {
    this.#isActive = isActive;
    this.#timer = setInterval(() => this.heartbeat(), heartbeatMs);
    this.#timer.unref();
  }

  get size() {
    return this.#open.size;
  }

  add(stream: LiveStream) {
    this.#open.add(stream);
  }

  delete(stream: LiveStream) {
    this.#open.delete(stream);
  }

  /** Pings every stream, ends the expired ones, then those whose session ended (one check per session). */
  heartbeat(now = Date.now()) {
    const bySession = new Map<string, LiveStream[]>();
    for (const stream of [...this.#open]) {
      if (stream.expiresAt && stream.expiresAt <= now) {
        stream.end();
        continue;
      }
      stream.ping();
      const list = bySession.get(stream.sessionId);
      if (list) list.push(stream);
      else bySession.set(stream.sessionId, [stream]);
    }
    for (const [sessionId, list] of bySession)
      this.#isActive(sessionId).then(
        (active) => {
          if (!active) for (const stream of list) stream.end();
        },
        () => undefined,
      );
  }

  close() {
    clearInterval(this.#timer);
    for (const stream of [...this.#open]) stream.end();
  }
}

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
  streams: LiveStreams,
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
  forgetRequestDetails(request);
  const socket = raw.socket instanceof Socket ? (raw.socket as StreamSocket) : null;
  if (socket?.destroyed) return;
  if (socket) {
    // The head as ServerResponse would write it (the headers hooks set on the response, such as the security
    // headers, then the stream's own), but one flat string written once: Node keeps the head it builds for as
    // long as the response lives, as a rope of every piece (about 2.5 KB a stream).
    const head = ["HTTP/1.1 200 OK"];
    for (const [name, value] of Object.entries(raw.getHeaders()))
      for (const v of Array.isArray(value) ? value : [value]) head.push(`${name}: ${v}`);
    for (const [name, value] of Object.entries(SSE_HEADERS)) head.push(`${name}: ${value}`);
    head.push(`date: ${new Date().toUTCString()}`, "transfer-encoding: chunked");
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    socket.write(chunk(`retry: ${RETRY_MS}\n\n`));
  } else {
    raw.writeHead(200, SSE_HEADERS);
    raw.write(`retry: ${RETRY_MS}\n\n`);
  }

  // A facilitator's view of one conversation follows only it (`?conversation=<user id>`), so its replay
  // after a reconnect reads that conversation, not every message since.
  const only = scope === "all" && query.conversation ? query.conversation : null;
  const stream = new LiveStream(streams, raw, socket, {
    userId: scope === "all" ? only : claims.sub,
    sessionId: claims.session_id,
    expiresAt: typeof claims.exp === "number" ? claims.exp * 1000 : 0,
  });
  streams.add(stream);
  if (socket) {
    socket[STREAM] = stream;
    socket.on("close", endStreamOfSocket);
  } else raw.on("close", () => stream.end());
  try {
    const remove = await hub.connect(stream, after);
    if (stream.closed) remove();
    else stream.remove = remove;
  } catch (error) {
    request.log.error({ err: error }, "live stream replay failed");
    stream.end();
    return;
  }
  // Tells the client the replay is done and what it has seen, so it can show "up to date".
  stream.send(`event: ready\ndata: ${JSON.stringify({ lastId: String(stream.lastSentId) })}\n\n`);
}

/**
 * The request objects live as long as the stream (hours), so they should hold little, and not the access token:
 * the URL and the parsed query keep only what has no secret, and the request id (built by crypto.randomUUID as a
 * rope of 13 pieces) is kept flat.
 */
function forgetRequestDetails(request: FastifyRequest) {
  // The route's own path (these routes have no parameters): a slice of the URL would keep all of it alive.
  if (request.routeOptions.url) request.raw.url = request.routeOptions.url;
  const query = request.query as Record<string, string | undefined>;
  if ("access_token" in query) query.access_token = undefined;
  request.id = Buffer.from(String(request.id)).toString("latin1");
}

function cursorOf(lastEventId: string | string[] | undefined, after: string | undefined): number | null {
  const values = [Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, after]
    .filter((v): v is string => typeof v === "string" && /^\d{1,15}$/.test(v))
    .map(Number);
  return values.length ? Math.max(...values) : null;
}
