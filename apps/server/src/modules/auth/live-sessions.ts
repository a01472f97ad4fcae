import type { DatabaseHandle } from "../../db/database.ts";
import type { MessageBus } from "../../infrastructure/bus/bus.ts";
import { Cache } from "../../infrastructure/cache/cache.ts";
import { type Changed, onTableChanges } from "../../infrastructure/cache/table-changes.ts";
import type { CacheCounter } from "../../infrastructure/metrics/metrics.ts";
import type { LiveSessionRow } from "./auth.repository.ts";

export const SESSIONS_ENDED_CHANNEL = "auth_sessions_ended";

// The per-user index's Set slot beyond the Cache's own estimate; generous, so the byte bound is an upper bound.
const INDEX_BYTES = 120;

/**
 * "This session is still signed in", remembered in memory so that an authenticated request costs no database
 * round trip. Correctness rests on the write watch, not on the code that ends sessions: any committed write to
 * a session row (by its id, or by its user's id: sign-out everywhere, a password reset, a role change, a ban)
 * or to its user (a deletion takes the sessions along) forgets those sessions here and, through the bus, on
 * every replica before the request that wrote is answered; a write whose rows cannot be told forgets them all.
 */
export class LiveSessions {
  readonly #cache: Cache<LiveSessionRow>;
  readonly #byUser = new Map<string, Set<string>>();
  readonly #lookup: (sessionId: string) => Promise<LiveSessionRow | undefined>;
  readonly #now: () => number;
  readonly #listeners = new Set<(changed: Changed) => void>();
  #bus: MessageBus | null = null;

  constructor(options: {
    maxBytes: number;
    lookup: (sessionId: string) => Promise<LiveSessionRow | undefined>;
    now?: () => number;
    counter?: CacheCounter;
  }) {
    this.#lookup = options.lookup;
    this.#now = options.now ?? Date.now;
    this.#cache = new Cache<LiveSessionRow>({
      maxBytes: options.maxBytes,
      ...(options.counter && { counter: options.counter }),
      sizeOf: (row) => INDEX_BYTES + 2 * row.userId.length,
      // While this replica may be missing other replicas' signals, only the database can say.
      live: () => this.#bus?.live ?? true,
      onRemove: (row, sessionId) => {
        const sessions = this.#byUser.get(row.userId);
        sessions?.delete(sessionId);
        if (sessions?.size === 0) this.#byUser.delete(row.userId);
      },
    });
  }

  /** Forgets sessions on every committed write to their rows or their users', here and on other replicas. */
  async start(deps: { database: Pick<DatabaseHandle, "writes">; bus: MessageBus }): Promise<() => Promise<void>> {
    this.#bus = deps.bus;
    return onTableChanges(deps, {
      channel: SESSIONS_ENDED_CHANNEL,
      tables: { sessions: ["id", "user_id"], users: ["id"] },
      onChange: (changed) => this.forget(changed),
    });
  }

  get size(): number {
    return this.#cache.size;
  }

  get bytes(): number {
    return this.#cache.bytes;
  }

  /**
   * True when memory alone says the session is live (held, not idle past its limit, signals from other replicas
   * being heard); false means "ask isActive", not "ended". Synchronous, for answers served from memory.
   */
  knownActive(sessionId: string): boolean {
    const held = this.#cache.get(sessionId);
    return held !== undefined && held.idleUntil > this.#now();
  }

  async isActive(sessionId: string): Promise<boolean> {
    if (this.knownActive(sessionId)) return true;
    const current = this.#cache.begin();
    const row = await this.#lookup(sessionId);
    if (!row || row.idleUntil <= this.#now()) return false;
    // A lookup that a forget overtook may have read a session that has since ended: answer it, do not keep it.
    if (current()) {
      this.#cache.set(sessionId, row);
      if (this.#cache.get(sessionId)) {
        const sessions = this.#byUser.get(row.userId);
        if (sessions) sessions.add(sessionId);
        else this.#byUser.set(row.userId, new Set([sessionId]));
      }
    }
    return true;
  }

  /** Forgets the sessions named, and every session of the users named; everything for null. */
  forget(changed: Changed): void {
    if (!changed) {
      this.#cache.clear();
      this.#byUser.clear();
    } else {
      for (const key of changed) {
        this.#cache.forget(key);
        for (const sessionId of [...(this.#byUser.get(key) ?? [])]) this.#cache.forget(sessionId);
      }
    }
    for (const listener of this.#listeners) listener(changed);
  }

  /**
   * Calls `listener` with what each forget named (session and user ids; null: everything), on this replica, for
   * writes made on any: what holds a session open (a live stream) asks `isActive` again at once rather than at its
   * next check. A forget is not an end (a refreshed token writes its session too). Returns the unsubscribe.
   */
  onForget(listener: (changed: Changed) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
