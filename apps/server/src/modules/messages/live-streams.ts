import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, forbidden, tooManyRequests, unauthorized } from "../../errors.ts";
import { accessTokenOf, operatorRoleOf } from "../auth/guards.ts";
import type { LiveConnection, LiveHub } from "./live-hub.ts";
import { type SseWire, sseWireOf } from "./messages.stream.ts";
import type { OperatorPresence } from "./operator-presence.service.ts";

const HEARTBEAT_MS = 25_000;
/** Live-chat streams one person may hold open at once on one server (tabs, devices, a reconnect in flight). */
export const LIVE_STREAMS_PER_ACCOUNT = 5;
/** How long a browser waits before reconnecting (EventSource `retry:`). */
const RETRY_MS = 1500;
const PING = ": ping\n\n";

/**
 * One open stream: who holds it (for the cap and the heartbeat's checks) and the hub's bookkeeping. Its bytes go
 * through its wire (messages.stream.ts), set once the cap has let it in and its head is written.
 */
class LiveStream implements LiveConnection {
  readonly userId: string | null;
  lastSentId = 0;
  replaying: LiveConnection["replaying"] = null;
  closed = false;
  /** The person holding it (a facilitator's own id when the stream follows every conversation): the cap counts these. */
  readonly accountId: string;
  /** A console's stream (an operator's, of every conversation or one): while it is open, no push for its operator. */
  readonly console: boolean;
  readonly sessionId: string;
  /** Token expiry, ms since the epoch (0: none). */
  readonly expiresAt: number;
  readonly #streams: LiveStreams;
  wire: SseWire | null = null;

  constructor(
    streams: LiveStreams,
    who: { userId: string | null; accountId: string; sessionId: string; expiresAt: number; console: boolean },
  ) {
    this.#streams = streams;
    this.userId = who.userId;
    this.accountId = who.accountId;
    this.console = who.console;
    this.sessionId = who.sessionId;
    this.expiresAt = who.expiresAt;
  }

  send(frame: string) {
    if (!this.closed) this.wire?.write(frame);
  }

  ping() {
    this.send(PING);
  }

  cork() {
    this.wire?.cork();
  }

  uncork() {
    this.wire?.uncork();
  }

  /**
   * Ends the response properly (last chunk) and closes the connection; the browser then reconnects. `drop`: closes
   * it at once, with whatever it had not taken yet.
   */
  end(drop = false) {
    if (this.closed) return;
    this.closed = true;
    this.#streams.delete(this);
    this.wire?.end(drop);
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
  readonly #presence: OperatorPresence | null;
  readonly #timer: NodeJS.Timeout;

  /** `presence`: told of each console stream that opens and ends, and renewed on each heartbeat. */
  constructor(
    hub: LiveHub,
    isActive: (sessionId: string) => Promise<boolean>,
    presence: OperatorPresence | null = null,
    heartbeatMs = HEARTBEAT_MS,
  ) {
    this.#hub = hub;
    this.#isActive = isActive;
    this.#presence = presence;
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
   * cannot all pass it. A console's stream marks its operator present: the promise settles once every replica can
   * see that (a failed write settles too: that operator may get a push they did not need).
   */
  add(stream: LiveStream): Promise<void> {
    const held = this.#perAccount.get(stream.accountId) ?? 0;
    if (held >= LIVE_STREAMS_PER_ACCOUNT) throw tooManyRequests(5);
    this.#perAccount.set(stream.accountId, held + 1);
    this.#open.add(stream);
    return stream.console && this.#presence ? this.#presence.opened(stream.accountId) : Promise.resolve();
  }

  delete(stream: LiveStream) {
    if (!this.#open.delete(stream)) return;
    this.#hub.disconnect(stream);
    const left = (this.#perAccount.get(stream.accountId) ?? 1) - 1;
    if (left <= 0) this.#perAccount.delete(stream.accountId);
    else this.#perAccount.set(stream.accountId, left);
    if (stream.console) void this.#presence?.closed(stream.accountId);
  }

  /** Pings every stream, ends the expired ones, then those whose session ended (one check per session). */
  heartbeat(now = Date.now()) {
    void this.#presence?.renew().catch(() => undefined);
    const live: LiveStream[] = [];
    for (const stream of [...this.#open]) {
      if (stream.expiresAt && stream.expiresAt <= now) {
        stream.end();
        continue;
      }
      stream.ping();
      live.push(stream);
    }
    this.#endSignedOut(live);
  }

  /**
   * Checks at once the streams of the sessions and people a write named (auth's `onForget`; null: every stream):
   * an operator whose role changed, or a person signed out everywhere, sees their open console or chat end now,
   * on every replica, not at the next heartbeat.
   */
  recheck(changed: ReadonlySet<string> | null) {
    this.#endSignedOut([...this.#open].filter((s) => changed === null || changed.has(s.sessionId) || changed.has(s.accountId)));
  }

  /** Ends the streams whose session has ended, asking once per session. */
  #endSignedOut(streams: LiveStream[]) {
    const bySession = new Map<string, LiveStream[]>();
    for (const stream of streams) {
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

  const pending = sseWireOf(reply);
  if (!pending) return;
  const stream = new LiveStream(streams, {
    userId: scope === "all" ? only : claims.sub,
    accountId: claims.sub,
    sessionId: claims.session_id,
    expiresAt: typeof claims.exp === "number" ? claims.exp * 1000 : 0,
    console: scope === "all",
  });
  const present = streams.add(stream); // the cap: may refuse (429), before anything is written
  stream.wire = pending.open(request, RETRY_MS, () => stream.end());

  try {
    // Present before "ready": a console that says it is live is one no push will talk over.
    await present;
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

function cursorOf(lastEventId: string | string[] | undefined, after: string | undefined): number | null {
  const values = [Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, after]
    .filter((v): v is string => typeof v === "string" && /^\d{1,15}$/.test(v))
    .map(Number);
  return values.length ? Math.max(...values) : null;
}
