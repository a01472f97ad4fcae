import type { MessageBus } from "../../infrastructure/bus/bus.ts";

/** What the database says about a session the cache does not hold: its user, and until when it may stay idle. */
export interface LiveSessionRow {
  userId: string;
  /** Epoch ms after which the session has been idle too long (Infinity when inactivity never ends it). */
  idleUntil: number;
}

/** What ended: one session, or every session of one user (sign-out everywhere, password reset, ban, deletion). */
export type SessionsEnded = { sessionId: string } | { userId: string };

export const SESSIONS_ENDED_CHANNEL = "auth_sessions_ended";

// Estimated V8 cost of one entry beyond its strings: the entry object, its Map slot and its per-user Set slot.
// Deliberately generous, so that the byte bound is an upper bound.
const ENTRY_OVERHEAD_BYTES = 320;

interface Entry extends LiveSessionRow {
  bytes: number;
}

/**
 * "This session is still signed in", remembered in memory so that an authenticated request costs no database
 * round trip. Correctness rests on invalidation: every place a session ends goes through the repository, which
 * calls `ended` after the change is committed; `ended` drops the entries here and publishes on the bus so every
 * replica drops them too before the request that ended them is answered. Bounded in bytes, least recently used out.
 */
export class LiveSessions {
  readonly #entries = new Map<string, Entry>();
  readonly #byUser = new Map<string, Set<string>>();
  readonly #maxBytes: number;
  readonly #lookup: (sessionId: string) => Promise<LiveSessionRow | undefined>;
  readonly #now: () => number;
  #bytes = 0;
  // Bumped by every invalidation: a lookup that started before one must not store what it read.
  #epoch = 0;
  #bus: MessageBus | null = null;

  constructor(options: {
    maxBytes: number;
    lookup: (sessionId: string) => Promise<LiveSessionRow | undefined>;
    now?: () => number;
  }) {
    this.#maxBytes = options.maxBytes;
    this.#lookup = options.lookup;
    this.#now = options.now ?? Date.now;
  }

  /** Listens for sessions ended on other replicas; a gap in the signals (a dropped LISTEN) forgets everything. */
  async listen(bus: MessageBus): Promise<void> {
    this.#bus = bus;
    await bus.subscribe(
      SESSIONS_ENDED_CHANNEL,
      (payload) => this.#drop(parsePayload(payload)),
      () => this.clear(),
    );
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * True when memory alone says the session is live (held, not idle past its limit, signals from other replicas
   * being heard); false means "ask isActive", not "ended". Synchronous, for answers served from memory.
   */
  knownActive(sessionId: string): boolean {
    // While this replica may be missing other replicas' signals, only the database can say.
    const cached = this.#bus && !this.#bus.live ? undefined : this.#entries.get(sessionId);
    if (!cached || cached.idleUntil <= this.#now()) return false;
    // Most recently used goes last: Map keeps insertion order, so the first key is the one to evict.
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, cached);
    return true;
  }

  async isActive(sessionId: string): Promise<boolean> {
    if (this.knownActive(sessionId)) return true;
    const epoch = this.#epoch;
    const row = await this.#lookup(sessionId);
    if (!row || row.idleUntil <= this.#now()) return false;
    if (epoch === this.#epoch) this.#store(sessionId, row);
    return true;
  }

  /** Called once a change that ended sessions is committed. Resolves after every replica has been told. */
  async ended(what: SessionsEnded): Promise<void> {
    this.#drop(what);
    await this.#bus?.publish(SESSIONS_ENDED_CHANNEL, "sessionId" in what ? `s:${what.sessionId}` : `u:${what.userId}`, {
      confirm: true,
    });
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
    this.#byUser.clear();
    this.#bytes = 0;
  }

  #drop(what: SessionsEnded | null): void {
    this.#epoch++;
    if (!what) this.clear();
    else if ("sessionId" in what) this.#remove(what.sessionId);
    else for (const sessionId of this.#byUser.get(what.userId) ?? []) this.#remove(sessionId);
  }

  #store(sessionId: string, row: LiveSessionRow): void {
    const bytes = ENTRY_OVERHEAD_BYTES + 2 * (sessionId.length + row.userId.length);
    if (bytes > this.#maxBytes) return;
    while (this.#bytes + bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#remove(oldest);
    }
    this.#entries.set(sessionId, { ...row, bytes });
    this.#bytes += bytes;
    const sessions = this.#byUser.get(row.userId);
    if (sessions) sessions.add(sessionId);
    else this.#byUser.set(row.userId, new Set([sessionId]));
  }

  #remove(sessionId: string): void {
    const entry = this.#entries.get(sessionId);
    if (!entry) return;
    this.#entries.delete(sessionId);
    this.#bytes -= entry.bytes;
    const sessions = this.#byUser.get(entry.userId);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.#byUser.delete(entry.userId);
  }
}

function parsePayload(payload: string): SessionsEnded | null {
  const id = payload.slice(2);
  if (payload.startsWith("s:") && id) return { sessionId: id };
  if (payload.startsWith("u:") && id) return { userId: id };
  return null; // not ours to understand: forgetting everything is always safe
}
