import { randomUUID } from "node:crypto";
import type { DB } from "../../db/database.ts";
import * as repo from "./operator-alerts.repository.ts";

/**
 * How long a replica's word that an operator has a console open holds without being renewed. Replicas renew theirs on
 * the live streams' heartbeat (every 25 s), so a living replica never lets it lapse; one that died stops counting at
 * most this long after its last heartbeat.
 */
export const PRESENCE_TTL_MS = 90_000;

/**
 * Which operators have a console open, across replicas: each replica keeps a row per operator while it holds at least
 * one of their console streams (`operator_presence`), removed when the last one ends and renewed on each heartbeat, so
 * a replica that dies without saying so stops counting once its rows expire. The database, not the bus: a replica
 * that starts (or missed a signal) reads the truth, with nothing to replay, and the same code serves SQLite and
 * PostgreSQL. Writes for one operator go out in order, each writing the count as it is when it runs, so a console that
 * opens and closes at once leaves no row behind.
 */
export class OperatorPresence {
  readonly #db: DB;
  readonly #replica: string;
  readonly #now: () => number;
  /** Open console streams on this replica, per operator. */
  readonly #open = new Map<string, number>();
  /** The last write queued per operator; the next one runs after it. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(db: DB, now: () => number = Date.now, replica: string = randomUUID()) {
    this.#db = db;
    this.#now = now;
    this.#replica = replica;
  }

  /**
   * A console stream of `operatorId` opened here; settles once every replica can see it (a failed write is left). An
   * operator back at a console has caught up: once away again, the next message of any conversation pushes them.
   */
  opened(operatorId: string): Promise<void> {
    this.#open.set(operatorId, (this.#open.get(operatorId) ?? 0) + 1);
    const present = this.#write(operatorId);
    return Promise.all([present, repo.forgetPushesTo(this.#db, operatorId).catch(() => undefined)]).then(() => undefined);
  }

  /** One of `operatorId`'s console streams here ended. */
  closed(operatorId: string): Promise<void> {
    const left = (this.#open.get(operatorId) ?? 1) - 1;
    if (left > 0) this.#open.set(operatorId, left);
    else this.#open.delete(operatorId);
    return this.#write(operatorId);
  }

  /** The heartbeat: moves this replica's rows on, and drops the expired rows of replicas that died. */
  async renew(): Promise<void> {
    const now = this.#now();
    await repo.upsertPresence(this.#db, this.#replica, [...this.#open.keys()], this.#until(now));
    await repo.deleteExpiredPresence(this.#db, new Date(now).toISOString());
  }

  /** Shutting down: this replica holds no console any more. */
  async close(): Promise<void> {
    this.#open.clear();
    await Promise.all(this.#writes.values());
    await repo.deletePresence(this.#db, this.#replica);
  }

  #until(now: number) {
    return new Date(now + PRESENCE_TTL_MS).toISOString();
  }

  #write(operatorId: string): Promise<void> {
    const write = (this.#writes.get(operatorId) ?? Promise.resolve())
      .then(async () => {
        if (this.#open.has(operatorId))
          await repo.upsertPresence(this.#db, this.#replica, [operatorId], this.#until(this.#now()));
        else await repo.deletePresence(this.#db, this.#replica, operatorId);
      })
      // Failing open: an operator not marked present gets a push they did not need; a row not removed expires.
      .catch(() => undefined);
    this.#writes.set(operatorId, write);
    void write.then(() => {
      if (this.#writes.get(operatorId) === write) this.#writes.delete(operatorId);
    });
    return write;
  }
}

/** Which of these operators have a console open on any replica at `now`. */
export function presentOperators(db: DB, operatorIds: readonly string[], now: Date): Promise<Set<string>> {
  return repo.listPresent(db, operatorIds, now.toISOString());
}
