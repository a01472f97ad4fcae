import type { ChatMessage } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import type { MessageBus } from "../../infrastructure/bus/index.ts";
import { listMessagesAfter, type MessageRow, maxMessageId } from "./messages.repository.ts";
import { CorkedUntilTurnEnds } from "./messages.stream.ts";

export const MESSAGES_CHANNEL = "hikaya_messages";
/** "A conversation's assignee changed": `{ conversation }`, the conversation's user id. */
export const ASSIGNMENTS_CHANNEL = "hikaya_assignments";
/** "A private note was added to a conversation": `{ conversation }`. Facilitators' streams only. */
export const NOTES_CHANNEL = "hikaya_notes";
const BATCH = 500;
/** Safety net: even with no signal at all, a replica reads the tail this often. */
const POLL_MS = 5000;

/** One open live stream: a user's tab (their conversation) or a facilitator's (all conversations). */
export interface LiveConnection {
  /** The conversation it follows, or null for every conversation (facilitators). */
  userId: string | null;
  /** The highest message id already written to it; only larger ids are sent, so nothing twice. */
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
}

/**
 * Per-process fan-out of new messages to open streams. A bus signal (from this process or, through
 * LISTEN/NOTIFY, another replica) only says "there is something new"; the hub then reads every message
 * after the last one it dispatched, in id order, once for all its connections. Because ids commit in
 * order (dialect.ts lockMessageSequence), "after the last id" never skips a row, and each connection's
 * `lastSentId` keeps replay and live delivery from overlapping.
 */
export class LiveHub {
  readonly #db: DB;
  readonly #bus: MessageBus;
  readonly #toChat: (row: MessageRow) => ChatMessage;
  readonly #byUser = new Map<string, Set<Registered>>();
  readonly #all = new Set<Registered>();
  #cursor = 0;
  #pumping: Promise<void> | null = null;
  #again = false;
  #unsubscribe: (() => Promise<void>) | null = null;
  #unsubscribeAssignments: (() => Promise<void>) | null = null;
  #unsubscribeNotes: (() => Promise<void>) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Connections written to in this turn of the event loop, corked until it ends (messages.stream.ts). */
  readonly #corks = new CorkedUntilTurnEnds();

  constructor(db: DB, bus: MessageBus, toChat: (row: MessageRow) => ChatMessage) {
    this.#db = db;
    this.#bus = bus;
    this.#toChat = toChat;
  }

  async start() {
    this.#cursor = await maxMessageId(this.#db);
    this.#unsubscribe = await this.#bus.subscribe(
      MESSAGES_CHANNEL,
      (payload) => this.#signalled(payload),
      () => this.poke(),
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
      if (this.size > 0) this.poke();
    }, POLL_MS);
    this.#timer.unref();
  }

  get size() {
    return this.#all.size + [...this.#byUser.values()].reduce((n, s) => n + s.size, 0);
  }

  /**
   * Delivers a message this process just stored, and tells every replica (payload: its id and conversation).
   * When it is the very next id after the last one dispatched, nothing can be missing before it (ids commit in
   * order), so it goes out from memory without a read; otherwise the hub reads everything after its cursor.
   */
  async announce(row: MessageRow) {
    if (!this.#closed && !this.#pumping && row.id === this.#cursor + 1) {
      this.#cursor = row.id;
      this.#dispatch(row);
    } else this.poke();
    // The sender's acknowledgement leaves after the message's deliveries on this process, not before them. Both
    // awaited together: a publish failing while the flush is pending must not go unhandled.
    await Promise.all([
      this.#corks.flushed,
      this.#bus.publish(MESSAGES_CHANNEL, JSON.stringify({ id: row.id, conversation: row.user_id })),
    ]);
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

  /** A bus signal for an id already dispatched (this process's own message coming back) needs no read. */
  #signalled(payload: string) {
    let id = Number.NaN;
    try {
      id = Number((JSON.parse(payload) as { id?: unknown }).id);
    } catch {
      // Not ours to interpret: read.
    }
    if (Number.isInteger(id) && id <= this.#cursor) return;
    this.poke();
  }

  /** Read and dispatch everything new; coalesces signals that arrive while a read is running. */
  poke() {
    if (this.#closed) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = (async () => {
      try {
        do {
          this.#again = false;
          for (;;) {
            const rows = await listMessagesAfter(this.#db, null, this.#cursor, BATCH);
            for (const row of rows) this.#dispatch(row);
            if (rows.length > 0) this.#cursor = rows[rows.length - 1]?.id ?? this.#cursor;
            if (rows.length < BATCH) break;
          }
        } while (this.#again && !this.#closed);
      } catch {
        // The next signal or poll retries from the same cursor.
      } finally {
        this.#pumping = null;
      }
    })();
  }

  #dispatch(row: MessageRow) {
    const own = this.#byUser.get(row.user_id);
    if (!own && this.#all.size === 0) return;
    // Serialised once for every connection it goes to.
    let frame: string | null = null;
    for (const set of [own, this.#all]) {
      if (!set) continue;
      for (const conn of set) {
        if (conn.replaying) {
          conn.replaying.push(row);
          continue;
        }
        if (row.id <= conn.lastSentId) continue;
        frame ??= sseFrame(this.#toChat(row));
        conn.lastSentId = row.id;
        // A burst's messages then reach a facilitator's stream in one write, not one system call per message.
        this.#corks.hold(conn);
        conn.send(frame);
      }
    }
  }

  /**
   * Adds a connection and replays what it missed (ids after `after`) from the database before going
   * live. Messages that arrive during the replay are held and then sent in order, each once. `disconnect`
   * takes it out again (also when the replay fails).
   */
  async connect(conn: LiveConnection, after: number | null): Promise<void> {
    const registered: Registered = Object.assign(conn, { replaying: [] as MessageRow[] });
    (conn.userId === null ? this.#all : this.#setFor(conn.userId)).add(registered);
    try {
      if (after === null) {
        registered.lastSentId = await maxMessageId(this.#db, conn.userId);
      } else {
        registered.lastSentId = after;
        for (;;) {
          const rows = await listMessagesAfter(this.#db, conn.userId, registered.lastSentId, BATCH);
          for (const row of rows) {
            registered.lastSentId = row.id;
            conn.send(sseFrame(this.#toChat(row)));
          }
          if (rows.length < BATCH) break;
        }
      }
      const held = registered.replaying ?? [];
      registered.replaying = null;
      for (const row of held) {
        if (row.id <= registered.lastSentId) continue;
        registered.lastSentId = row.id;
        conn.send(sseFrame(this.#toChat(row)));
      }
    } catch (error) {
      this.disconnect(conn);
      throw error;
    }
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
    await this.#unsubscribe?.();
    await this.#unsubscribeAssignments?.();
    await this.#unsubscribeNotes?.();
    await this.#pumping;
  }
}
