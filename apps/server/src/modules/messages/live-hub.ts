import type { ChatMessage } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import type { DialectName } from "../../db/dialect.ts";
import type { MessageBus } from "../../infrastructure/bus/index.ts";
import {
  findMessagePosition,
  lastSettledPosition,
  listMessagesAfterPosition,
  listMessagesBetween,
  type MessagePosition,
  type MessageRow,
  maxMessageIdUpTo,
  positionOf,
  type ReadMessage,
} from "./messages.repository.ts";
import { CorkedUntilTurnEnds } from "./messages.stream.ts";

export const MESSAGES_CHANNEL = "hikaya_messages";
/** "A conversation's assignee changed": `{ conversation }`, the conversation's user id. */
export const ASSIGNMENTS_CHANNEL = "hikaya_assignments";
/** "A private note was added to a conversation": `{ conversation }`. Facilitators' streams only. */
export const NOTES_CHANNEL = "hikaya_notes";
/**
 * The messages channel's one payload: a signal only says "read after your cursor", so every signal is the same and
 * the bus folds those published within its window into one (infrastructure/bus/coalescer.ts).
 */
export const NEW_MESSAGES_SIGNAL = "new";
const BATCH = 500;
/** Safety net: even with no signal at all, a replica reads the tail this often. */
const POLL_MS = 5000;
/**
 * A read that stopped at an unsettled message (committed, but an older transaction still runs) reads again this
 * soon: that transaction's own signal may never come (it stored no message, or failed).
 */
const SETTLE_RETRY_MS = 10;

/** One open live stream: a user's tab (their conversation) or a facilitator's (all conversations). */
export interface LiveConnection {
  /** The conversation it follows, or null for every conversation (facilitators). */
  userId: string | null;
  /**
   * The id of the last message written to it (its stream's resume cursor). Messages go out in the hub's order
   * (see LiveHub), and only those after the last one sent, so nothing twice.
   */
  lastSentId: number;
  /** Hub-owned: rows that arrived while the connection was replaying, sent once the replay is done. */
  replaying?: MessageRow[] | null;
  /** Writes one event; `frame` is the message already serialised as SSE (shared by every connection). */
  send(frame: string): void;
  /** Optional write batching: frames sent between cork and uncork leave in one write. */
  cork?(): void;
  uncork?(): void;
}

/** One SSE event for a message: its id is the resume cursor (Last-Event-ID). */
export function sseFrame(message: ChatMessage): string {
  return `id: ${message._id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * An assignment event for facilitators' streams: which conversation's assignee changed (null: perhaps any, after the
 * bus may have lost signals). No id: it is not a message, and an open console reads the assignee afresh.
 */
export function assignmentFrame(conversation: string | null, change: AssignmentChange = {}): string {
  return `event: assignment\ndata: ${JSON.stringify({ conversation, ...change })}\n\n`;
}

/** Who has a conversation now and who made the change: a console tells its operator when a colleague hands them one. */
export interface AssignmentChange {
  assignee?: string | null;
  by?: string;
}

/** A note event for facilitators' streams: read this conversation's notes afresh (null: perhaps any, after a gap). */
export function noteFrame(conversation: string | null): string {
  return `event: note\ndata: ${JSON.stringify({ conversation })}\n\n`;
}

/** A bus payload's `conversation`, or null when it cannot be read (then every conversation may have changed). */
function conversationIn(payload: string): { conversation: string | null; rest: Record<string, unknown> } {
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    return { conversation: typeof parsed.conversation === "string" ? parsed.conversation : null, rest: parsed };
  } catch {
    return { conversation: null, rest: {} };
  }
}

interface Registered extends LiveConnection {
  replaying: MessageRow[] | null;
  /** Where the last message sent stands in the hub's order (every conversation's streams skip what is not after). */
  sent: MessagePosition;
}

/** a after b in (tx, id) order; tx are decimal strings without leading zeros. */
export function isAfter(a: MessagePosition, b: MessagePosition): boolean {
  if (a.tx !== b.tx) return a.tx.length !== b.tx.length ? a.tx.length > b.tx.length : a.tx > b.tx;
  return a.id > b.id;
}

/**
 * Per-process fan-out of new messages to open streams. A bus signal (from this process or, through
 * LISTEN/NOTIFY, another replica) only says "there is something new"; the hub then reads every message
 * after its cursor, once for all its connections, in (tx, id) order, and stops at the first message not yet settled
 * (dialect.ts runningTransactions: an older transaction may still commit one before it), reading again shortly. So the
 * hub never skips a row, though conversations are written side by side; within a conversation that order is id
 * order (dialect.ts lockConversationMessages), so a family's stream resumes after an id. Each connection's
 * last position keeps replay and live delivery from overlapping.
 */
export class LiveHub {
  readonly #db: DB;
  readonly #dialect: DialectName;
  readonly #bus: MessageBus;
  readonly #toChat: (row: MessageRow) => ChatMessage;
  readonly #byUser = new Map<string, Set<Registered>>();
  readonly #all = new Set<Registered>();
  /** Every message up to here is settled and dispatched. */
  #cursor: MessagePosition = { tx: "0", id: 0 };
  #pumping: Promise<void> | null = null;
  /** Callers waiting for a read that starts after they asked. */
  #waiting: (() => void)[] = [];
  #retry: NodeJS.Timeout | null = null;
  #unsubscribe: (() => Promise<void>) | null = null;
  #unsubscribeAssignments: (() => Promise<void>) | null = null;
  #unsubscribeNotes: (() => Promise<void>) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Connections written to in this turn of the event loop, corked until it ends (messages.stream.ts). */
  readonly #corks = new CorkedUntilTurnEnds();

  constructor(db: DB, bus: MessageBus, toChat: (row: MessageRow) => ChatMessage, dialect: DialectName = "sqlite") {
    this.#db = db;
    this.#dialect = dialect;
    this.#bus = bus;
    this.#toChat = toChat;
  }

  async start() {
    this.#cursor = await lastSettledPosition(this.#db, this.#dialect);
    this.#unsubscribe = await this.#bus.subscribe(
      MESSAGES_CHANNEL,
      () => void this.poke(),
      () => void this.poke(),
    );
    this.#unsubscribeAssignments = await this.#bus.subscribe(
      ASSIGNMENTS_CHANNEL,
      (payload) => this.#assignmentChanged(payload),
      () => this.#toFacilitators(assignmentFrame(null)),
    );
    this.#unsubscribeNotes = await this.#bus.subscribe(
      NOTES_CHANNEL,
      (payload) => this.#toFacilitators(noteFrame(conversationIn(payload).conversation)),
      () => this.#toFacilitators(noteFrame(null)),
    );
    this.#timer = setInterval(() => {
      if (this.size > 0) void this.poke();
    }, POLL_MS);
    this.#timer.unref();
  }

  get size() {
    return this.#all.size + [...this.#byUser.values()].reduce((n, s) => n + s.size, 0);
  }

  /** Where the hub has read up to (tests and the replay's upper bound). */
  get cursor(): MessagePosition {
    return this.#cursor;
  }

  /**
   * A message this process just stored: tells every replica (one signal, folded by the bus with its neighbours) and
   * reads it here. The sender's acknowledgement leaves after the message's deliveries on this process (once it is
   * settled, which it is unless an older transaction still runs), not before them; it does not wait for the bus.
   */
  async announce(_row: MessageRow) {
    void this.#bus.publish(MESSAGES_CHANNEL, NEW_MESSAGES_SIGNAL).catch(() => undefined);
    await this.poke();
    await this.#corks.flushed;
  }

  /**
   * Tells every replica's facilitators that a conversation was assigned or unassigned. This process's own streams
   * hear it back through the bus like every other replica's, so there is one path.
   */
  async announceAssignment(conversation: string, change: AssignmentChange = {}) {
    await this.#bus.publish(ASSIGNMENTS_CHANNEL, JSON.stringify({ conversation, ...change }));
  }

  /** Tells every replica's facilitators that a conversation has a new private note (one path, as assignments). */
  async announceNote(conversation: string) {
    await this.#bus.publish(NOTES_CHANNEL, JSON.stringify({ conversation }));
  }

  #assignmentChanged(payload: string) {
    const { conversation, rest } = conversationIn(payload);
    const change: AssignmentChange = {};
    if (conversation && (typeof rest.assignee === "string" || rest.assignee === null)) change.assignee = rest.assignee;
    if (conversation && typeof rest.by === "string") change.by = rest.by;
    this.#toFacilitators(assignmentFrame(conversation, change));
  }

  /** Facilitators' streams of every conversation (the inbox); a family's own stream never hears who has it. */
  #toFacilitators(frame: string) {
    if (this.#closed) return;
    for (const conn of this.#all) if (!conn.replaying) conn.send(frame);
  }

  /**
   * Reads and dispatches everything new. Resolves once a read that started after the call has finished; calls
   * made while a read runs share the next one.
   */
  poke(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#pumping ??= this.#pump();
    return done;
  }

  async #pump() {
    try {
      while (this.#waiting.length > 0 && !this.#closed) {
        const round = this.#waiting;
        this.#waiting = [];
        let unsettled = false;
        try {
          unsettled = await this.#readAll();
        } catch {
          // The next signal or poll retries from the same cursor.
        }
        for (const resolve of round) resolve();
        if (unsettled) this.#retrySoon();
      }
    } finally {
      this.#pumping = null;
      if (this.#closed) for (const resolve of this.#waiting.splice(0)) resolve();
    }
  }

  /** Reads after the cursor up to the first unsettled message; true when it stopped at one. */
  async #readAll(): Promise<boolean> {
    for (;;) {
      const rows = await listMessagesAfterPosition(this.#db, this.#dialect, this.#cursor, BATCH);
      let final: ReadMessage[] = rows;
      const firstUnsettled = rows.findIndex((row) => !row.settled);
      if (firstUnsettled >= 0) final = rows.slice(0, firstUnsettled);
      const last = final.at(-1);
      if (last && final.some((row) => row.overtook)) {
        // An older transaction was not this database's, or has ended since: a read that starts now sees every row
        // up to `last` that it could have committed (CONTEXT.md), so that read's rows up to there are final.
        const until = positionOf(last);
        const again = await listMessagesAfterPosition(this.#db, this.#dialect, this.#cursor, BATCH);
        final = again.filter((row) => !isAfter(positionOf(row), until));
      }
      for (const row of final) {
        if (this.#closed) return false;
        this.#cursor = positionOf(row);
        this.#dispatch(row);
      }
      if (final.length < rows.length) return true;
      if (rows.length < BATCH) return false;
    }
  }

  #retrySoon() {
    if (this.#retry || this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.poke();
    }, SETTLE_RETRY_MS);
    this.#retry.unref();
  }

  #dispatch(row: MessageRow) {
    const own = this.#byUser.get(row.user_id);
    if (!own && this.#all.size === 0) return;
    const position = positionOf(row);
    // Serialised once for every connection it goes to.
    let frame: string | null = null;
    for (const set of [own, this.#all]) {
      if (!set) continue;
      for (const conn of set) {
        if (conn.replaying) {
          conn.replaying.push(row);
          continue;
        }
        if (!this.#isNew(conn, row, position)) continue;
        frame ??= sseFrame(this.#toChat(row));
        conn.lastSentId = row.id;
        conn.sent = position;
        // A burst's messages then reach a facilitator's stream in one write, not one system call per message.
        this.#corks.hold(conn);
        conn.send(frame);
      }
    }
  }

  /** A family's stream resumes after an id (its conversation's order); every conversation's, after a position. */
  #isNew(conn: Registered, row: MessageRow, position: MessagePosition): boolean {
    return conn.userId === null ? isAfter(position, conn.sent) : row.id > conn.lastSentId;
  }

  /**
   * Adds a connection and replays what it missed (messages after the one with id `after`) from the database before
   * going live. The replay reads up to the hub's cursor when the connection joins; what the hub reads after that is
   * held meanwhile and then sent in order, each once. A stream of every conversation resumes at the position of
   * message `after` (0: the first); if that message is gone (its account was deleted) it starts from now, and the
   * console, which reads its lists again after each reconnection, loses nothing. `disconnect` takes it out again (also when the
   * replay fails).
   */
  async connect(conn: LiveConnection, after: number | null): Promise<void> {
    const upTo = this.#cursor;
    const registered: Registered = Object.assign(conn, { replaying: [] as MessageRow[], sent: upTo });
    (conn.userId === null ? this.#all : this.#setFor(conn.userId)).add(registered);
    try {
      if (conn.userId !== null) {
        const userId = conn.userId;
        if (after === null) registered.lastSentId = await maxMessageIdUpTo(this.#db, this.#dialect, userId, upTo);
        else {
          registered.lastSentId = after;
          await this.#replay(registered, (from) => ({ userId, afterId: from.id }), { tx: "0", id: after }, upTo);
        }
      } else if (after === null) {
        registered.lastSentId = upTo.id;
      } else {
        const from = after === 0 ? { tx: "0", id: 0 } : ((await findMessagePosition(this.#db, after)) ?? upTo);
        registered.lastSentId = after;
        registered.sent = from;
        await this.#replay(registered, (position) => ({ after: position }), from, upTo);
      }
      const held = registered.replaying ?? [];
      registered.replaying = null;
      for (const row of held) {
        const position = positionOf(row);
        if (!this.#isNew(registered, row, position)) continue;
        registered.lastSentId = row.id;
        registered.sent = position;
        conn.send(sseFrame(this.#toChat(row)));
      }
    } catch (error) {
      this.disconnect(conn);
      throw error;
    }
  }

  async #replay(
    conn: Registered,
    range: (from: MessagePosition) => Parameters<typeof listMessagesBetween>[2],
    from: MessagePosition,
    upTo: MessagePosition,
  ) {
    let position = from;
    for (;;) {
      const rows = await listMessagesBetween(this.#db, this.#dialect, range(position), upTo, BATCH);
      for (const row of rows) {
        position = positionOf(row);
        conn.lastSentId = row.id;
        conn.sent = position;
        conn.send(sseFrame(this.#toChat(row)));
      }
      if (rows.length < BATCH) break;
    }
    if (isAfter(upTo, conn.sent)) conn.sent = upTo;
  }

  /** Takes a connection out (a closed stream); nothing more is written to it. Idempotent. */
  disconnect(conn: LiveConnection) {
    if (conn.userId === null) {
      this.#all.delete(conn as Registered);
      return;
    }
    const set = this.#byUser.get(conn.userId);
    if (!set) return;
    set.delete(conn as Registered);
    if (set.size === 0) this.#byUser.delete(conn.userId);
  }

  #setFor(userId: string) {
    let set = this.#byUser.get(userId);
    if (!set) {
      set = new Set();
      this.#byUser.set(userId, set);
    }
    return set;
  }

  async close() {
    this.#closed = true;
    this.#corks.flush();
    if (this.#timer) clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
    await this.#unsubscribe?.();
    await this.#unsubscribeAssignments?.();
    await this.#unsubscribeNotes?.();
    await this.#pumping;
  }
}
