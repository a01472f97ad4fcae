import type { ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, forbidden, tooManyRequests, unauthorized } from "../../errors.ts";
import { accessTokenOf, operatorRoleOf } from "../auth/guards.ts";
import type { LiveConnection, LiveHub } from "./live-hub.ts";

const HEARTBEAT_MS = 25_000;
/** Live-chat streams one person may hold open at once on one server (tabs, devices, a reconnect in flight). */
export const LIVE_STREAMS_PER_ACCOUNT = 5;
/** Bytes a stream may have waiting to be written (beyond the kernel's buffers) before it is dropped. */
export const LIVE_STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;
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
 * are written here, in the format ServerResponse would use), and once its head is written, no response object
 * at all (see detach). A response without a TCP socket of its own (an injected request) goes through
 * ServerResponse as usual.
 */
class LiveStream implements LiveConnection {
  readonly userId: string | null;
  lastSentId = 0;
  replaying: LiveConnection["replaying"] = null;
  closed = false;
  /** The person holding it (a facilitator's own id when the stream follows every conversation): the cap counts these. */
  readonly accountId: string;
  readonly sessionId: string;
  /** Token expiry, ms since the epoch (0: none). */
  readonly expiresAt: number;
  readonly #streams: LiveStreams;
  readonly #socket: StreamSocket | null;
  /** Only without a socket of its own (injected). */
  readonly #raw: ServerResponse | null;

  constructor(
    streams: LiveStreams,
    out: { socket: StreamSocket } | { raw: ServerResponse },
    who: { userId: string | null; accountId: string; sessionId: string; expiresAt: number },
  ) {
    this.#streams = streams;
    this.#socket = "socket" in out ? out.socket : null;
    this.#raw = "raw" in out ? out.raw : null;
    this.userId = who.userId;
    this.accountId = who.accountId;
    this.sessionId = who.sessionId;
    this.expiresAt = who.expiresAt;
  }

  send(frame: string) {
    if (this.closed) return;
    if (this.#socket) this.#write(this.#socket, bytesOf(frame));
    else this.#raw?.write(frame);
  }

  ping() {
    if (this.closed) return;
    if (this.#socket) this.#write(this.#socket, PING);
    else this.#raw?.write(PING_TEXT);
  }

  /**
   * A reader that stopped reading (a frozen tab, a dead link the kernel has not given up on) would have every event
   * kept for it here, without end. Once more than LIVE_STREAM_MAX_BUFFERED_BYTES wait beyond what the kernel holds,
   * the connection is dropped and its memory freed: the browser reconnects with the last id it saw and gets the rest
   * from the database.
   */
  #write(socket: StreamSocket, bytes: Buffer) {
    socket.write(bytes);
    if (socket.writableLength > LIVE_STREAM_MAX_BUFFERED_BYTES) this.end(true);
  }

  cork() {
    this.#socket?.cork();
  }

  uncork() {
    this.#socket?.uncork();
  }

  /**
   * Ends the response properly (last chunk) and closes the connection; the browser then reconnects. `drop`: closes
   * it at once, with whatever it had not taken yet.
   */
  end(drop = false) {
    if (this.closed) return;
    this.closed = true;
    this.#streams.delete(this);
    const socket = this.#socket;
    if (!socket) {
      if (this.#raw && !this.#raw.writableEnded) this.#raw.end();
      return;
    }
    socket.off("close", endStreamOfSocket);
    socket[STREAM] = undefined;
    if (!drop && !socket.destroyed && socket.writable) socket.end(LAST_CHUNK);
    else socket.destroy();
  }
}

/**
 * The open streams of this process: the hub's connections, counted per person for the cap, and one timer for all
 * of them: it keeps proxies from timing the streams out and ends each once its session is signed out or its token
 * expires; the browser then reconnects with its current token (or is refused).
 */
export class LiveStreams {
  readonly #open = new Set<LiveStream>();
  /** Open streams per account (LIVE_STREAMS_PER_ACCOUNT). */
  readonly #perAccount = new Map<string, number>();
  readonly #hub: LiveHub;
  readonly #isActive: (sessionId: string) => Promise<boolean>;
  readonly #timer: NodeJS.Timeout;

  constructor(hub: LiveHub, isActive: (sessionId: string) => Promise<boolean>, heartbeatMs = HEARTBEAT_MS) {
    this.#hub = hub;
    this.#isActive = isActive;
    this.#timer = setInterval(() => this.heartbeat(), heartbeatMs);
    this.#timer.unref();
  }

  get size() {
    return this.#open.size;
  }

  get hub() {
    return this.#hub;
  }

  /**
   * Takes one of the person's stream places, or refuses with 429 when they hold them all. Checked and taken in one
   * turn of the event loop (the stream is added right after, with nothing awaited between), so tabs opening together
   * cannot all pass it.
   */
  add(stream: LiveStream) {
    const held = this.#perAccount.get(stream.accountId) ?? 0;
    if (held >= LIVE_STREAMS_PER_ACCOUNT) throw tooManyRequests(5);
    this.#perAccount.set(stream.accountId, held + 1);
    this.#open.add(stream);
  }

  delete(stream: LiveStream) {
    if (!this.#open.delete(stream)) return;
    this.#hub.disconnect(stream);
    const left = (this.#perAccount.get(stream.accountId) ?? 1) - 1;
    if (left <= 0) this.#perAccount.delete(stream.accountId);
    else this.#perAccount.set(stream.accountId, left);
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
 * database before going live: no gap, no duplicate. The token is checked before anything is sent, and a person
 * holds at most LIVE_STREAMS_PER_ACCOUNT streams on this process (429 beyond).
 */
export async function openLiveStream(request: FastifyRequest, reply: FastifyReply, scope: "own" | "all", streams: LiveStreams) {
  const query = request.query as Record<string, string | undefined>;
  const token = accessTokenOf(request) ?? (query.access_token || null);
  if (!token) throw unauthorized("Please log in.");
  const { tokens, sessions } = request.server.deps.auth;
  const claims = await tokens.verify(token);
  if (!(await sessions.isActive(claims.session_id))) throw new AppError("unauthorized", "Session not found");
  if (scope === "all" && !operatorRoleOf(claims)) throw forbidden("Operators only");
  const after = cursorOf(request.headers["last-event-id"], query.after);
  // A facilitator's view of one conversation follows only it (`?conversation=<user id>`), so its replay
  // after a reconnect reads that conversation, not every message since.
  const only = scope === "all" && query.conversation ? query.conversation : null;

  const raw = reply.raw;
  const socket = raw.socket instanceof Socket ? (raw.socket as StreamSocket) : null;
  if (socket?.destroyed) {
    reply.hijack();
    return;
  }
  const stream = new LiveStream(streams, socket ? { socket } : { raw }, {
    userId: scope === "all" ? only : claims.sub,
    accountId: claims.sub,
    sessionId: claims.session_id,
    expiresAt: typeof claims.exp === "number" ? claims.exp * 1000 : 0,
  });
  streams.add(stream); // the cap: may refuse (429), before anything is written
  reply.hijack();
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
    detach(request, raw, socket);
    socket[STREAM] = stream;
    socket.on("close", endStreamOfSocket);
  } else {
    raw.writeHead(200, SSE_HEADERS);
    raw.write(`retry: ${RETRY_MS}\n\n`);
    raw.on("close", () => stream.end());
  }

  try {
    await streams.hub.connect(stream, after);
    if (stream.closed) streams.hub.disconnect(stream);
  } catch (error) {
    request.log.error({ err: error }, "live stream replay failed");
    stream.end();
    return;
  }
  // Tells the client the replay is done and what it has seen, so it can show "up to date".
  stream.send(`event: ready\ndata: ${JSON.stringify({ lastId: String(stream.lastSentId) })}\n\n`);
}

/**
 * Once its head is written, a stream needs only its socket: the socket lets go of the response (as Node's own
 * server does when a response finishes), so the ServerResponse, its headers, Fastify's request and reply and the
 * listeners hooks put on them are garbage as soon as the handler returns, instead of living as long as the
 * stream (hours). What Node's server still holds for the connection is the request it parsed, the socket's
 * until it closes: it keeps nothing the stream does not need (no headers, no URL with the access token in it).
 * The socket's close still ends the stream (endStreamOfSocket), and Node's server still cleans up its parser.
 */
function detach(request: FastifyRequest, raw: ServerResponse, socket: Socket) {
  raw.detachSocket(socket);
  const req = request.raw;
  // The route's own path (these routes have no parameters): a slice of the URL would keep all of it alive.
  req.url = request.routeOptions.url ?? "/";
  req.headers = {};
  req.rawHeaders = [];
}

function cursorOf(lastEventId: string | string[] | undefined, after: string | undefined): number | null {
  const values = [Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, after]
    .filter((v): v is string => typeof v === "string" && /^\d{1,15}$/.test(v))
    .map(Number);
  return values.length ? Math.max(...values) : null;
}
