import type { ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The one way live-chat streams reach the wire. Every byte of a stream (its head, its events, its pings, its end),
 * every cork and flush and the socket's detaching from its response go through here, so what this relies on of Node's
 * internals (`ServerResponse.detachSocket`, the response's chunked framing) sits in one file, and
 * `messages.stream.test.ts` fails if Node changes it.
 */
export interface SseWire {
  /** Writes one SSE frame (events, pings). False when the reader fell too far behind and the wire was dropped. */
  write(frame: string): boolean;
  /** Frames written between cork and uncork leave in one write (one system call). */
  cork(): void;
  uncork(): void;
  /** Ends the response properly (last chunk), the connection with it; `drop`: closes it at once, unsent bytes lost. */
  end(drop?: boolean): void;
}

/** Bytes a stream may have waiting to be written (beyond the kernel's buffers) before it is dropped. */
export const LIVE_STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** One HTTP/1.1 chunk (the response is chunked, as Node would frame it), as bytes ready for the socket. */
const chunk = (text: string) => {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]);
};
const LAST_CHUNK = Buffer.from("0\r\n\r\n");

/**
 * The hub hands every connection of one event the same frame string, one connection after another (and the heartbeat
 * the same ping); framing and encoding it once here means a delivery is a single socket write of shared bytes,
 * whatever the fan-out.
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

const WIRE = Symbol("hikaya.sseWire");
type WireSocket = Socket & { [WIRE]?: SocketWire };

function closeWireOfSocket(this: WireSocket) {
  this[WIRE]?.closed();
}

/**
 * A stream on a TCP socket of its own: thousands stay open for hours, so each is one small object writing
 * chunk-framed bytes straight to its socket, with no timer, no closures and no response object once its head is
 * written (see detach).
 */
class SocketWire implements SseWire {
  readonly #socket: WireSocket;
  readonly #onClose: () => void;
  #open = true;

  constructor(socket: WireSocket, onClose: () => void) {
    this.#socket = socket;
    this.#onClose = onClose;
  }

  /**
   * A reader that stopped reading (a frozen tab, a dead link the kernel has not given up on) would have every event
   * kept for it here, without end. Once more than LIVE_STREAM_MAX_BUFFERED_BYTES wait beyond what the kernel holds,
   * the connection is dropped and its memory freed: the browser reconnects with the last id it saw and gets the rest
   * from the database.
   */
  write(frame: string) {
    if (!this.#open) return false;
    this.#socket.write(bytesOf(frame));
    if (this.#socket.writableLength <= LIVE_STREAM_MAX_BUFFERED_BYTES) return true;
    this.closed();
    return false;
  }

  cork() {
    this.#socket.cork();
  }

  uncork() {
    this.#socket.uncork();
  }

  end(drop = false) {
    if (!this.#open) return;
    this.#let(drop);
  }

  /** The socket closed (or must be dropped): the owner hears of it once. */
  closed() {
    if (!this.#open) return;
    this.#let(true);
    this.#onClose();
  }

  #let(drop: boolean) {
    this.#open = false;
    const socket = this.#socket;
    socket.off("close", closeWireOfSocket);
    socket[WIRE] = undefined;
    if (!drop && !socket.destroyed && socket.writable) socket.end(LAST_CHUNK);
    else socket.destroy();
  }
}

/** A response without a TCP socket of its own (an injected request) goes through ServerResponse as usual. */
class ResponseWire implements SseWire {
  readonly #raw: ServerResponse;

  constructor(raw: ServerResponse) {
    this.#raw = raw;
  }

  write(frame: string) {
    if (this.#raw.writableEnded) return false;
    this.#raw.write(frame);
    return true;
  }

  cork() {}

  uncork() {}

  end() {
    if (!this.#raw.writableEnded) this.#raw.end();
  }
}

/**
 * An SSE response about to start: `null` when its connection has already gone (nothing to write; the reply is
 * taken over so Fastify writes nothing either). Nothing is written until `open`, so a refusal (the cap's 429) can
 * still answer as usual.
 */
export interface PendingSseWire {
  /** Writes the head (200, the headers hooks set, the stream's own) and the retry hint, then lets go of the response. */
  open(request: FastifyRequest, retryMs: number, onClose: () => void): SseWire;
}

export function sseWireOf(reply: FastifyReply): PendingSseWire | null {
  const raw = reply.raw;
  const socket = raw.socket instanceof Socket ? (raw.socket as WireSocket) : null;
  if (socket?.destroyed) {
    reply.hijack();
    return null;
  }
  return {
    open(request, retryMs, onClose) {
      reply.hijack();
      if (!socket) {
        raw.writeHead(200, SSE_HEADERS);
        raw.write(`retry: ${retryMs}\n\n`);
        raw.on("close", onClose);
        return new ResponseWire(raw);
      }
      // The head as ServerResponse would write it (the headers hooks set on the response, such as the security
      // headers, then the stream's own), but one flat string written once: Node keeps the head it builds for as
      // long as the response lives, as a rope of every piece (about 2.5 KB a stream).
      const head = ["HTTP/1.1 200 OK"];
      for (const [name, value] of Object.entries(raw.getHeaders()))
        for (const v of Array.isArray(value) ? value : [value]) head.push(`${name}: ${v}`);
      for (const [name, value] of Object.entries(SSE_HEADERS)) head.push(`${name}: ${value}`);
      head.push(`date: ${new Date().toUTCString()}`, "transfer-encoding: chunked");
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      socket.write(chunk(`retry: ${retryMs}\n\n`));
      detach(raw, socket);
      forget(request);
      const wire = new SocketWire(socket, onClose);
      socket[WIRE] = wire;
      socket.on("close", closeWireOfSocket);
      return wire;
    },
  };
}

/**
 * Once its head is written, a stream needs only its socket: the socket lets go of the response (as Node's own
 * server does when a response finishes), so the ServerResponse, its headers, Fastify's request and reply and the
 * listeners hooks put on them are garbage as soon as the handler returns, instead of living as long as the
 * stream (hours). Afterwards the socket is ours to write to, and the response writes nothing more to it.
 * Node's server still cleans up its parser when the socket closes. Exported for the test that holds Node to it.
 */
export function detach(raw: ServerResponse, socket: Socket) {
  raw.detachSocket(socket);
}

/**
 * What Node's server still holds for the connection is the request it parsed, the socket's until it closes: it
 * keeps nothing the stream does not need (no headers, no URL with the access token in it).
 */
function forget(request: FastifyRequest) {
  const req = request.raw;
  // The route's own path (these routes have no parameters): a slice of the URL would keep all of it alive.
  req.url = request.routeOptions.url ?? "/";
  req.headers = {};
  req.rawHeaders = [];
}

/** What a per-turn cork holds: a connection whose wire may batch writes (test doubles may not). */
export interface Corkable {
  cork?(): void;
  uncork?(): void;
}

/**
 * A burst's messages are stored one request after another, and a facilitator's stream gets every one of them:
 * written as they come, that is one socket write (a system call) per message per stream. A stream written to is
 * held corked until the event loop has handled the requests that were ready together (`setImmediate`), so each
 * stream's share leaves in one write, before the loop waits for anything new.
 */
export class CorkedUntilTurnEnds {
  #corked = new Set<Corkable>();
  /** Settles once the corked writes have left; null while nothing is corked. */
  #flushed: PromiseWithResolvers<void> | null = null;

  /** Corks the connection (once per turn) before it is written to. */
  hold(conn: Corkable) {
    if (this.#corked.has(conn)) return;
    if (this.#corked.size === 0) {
      setImmediate(() => this.flush());
      this.#flushed = Promise.withResolvers();
    }
    this.#corked.add(conn);
    conn.cork?.();
  }

  /** Settles once what is corked now has left (undefined: nothing is). */
  get flushed(): Promise<void> | undefined {
    return this.#flushed?.promise;
  }

  flush() {
    const corked = this.#corked;
    this.#corked = new Set();
    for (const conn of corked) conn.uncork?.();
    this.#flushed?.resolve();
    this.#flushed = null;
  }
}
