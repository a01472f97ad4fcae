import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import type { AppMetrics } from "../../infrastructure/metrics/metrics.ts";
import { authErrors } from "./auth-errors.ts";
import { hashPassword, verifyPassword } from "./secrets.ts";

/**
 * The longest a password check waits for a free core. At the default cost (about 0.55 s of CPU per check) a
 * person told "busy, retry in a second" at once is better served than one left waiting for ten: the waits would
 * add up for everyone behind them. A check expected to wait longer is refused on arrival; one that still waits
 * this long (the machine slower than expected) is refused then.
 */
export const MAX_WAIT_MS = 1000;

// A first guess of one check's time before any has run: 0.6 s at logN 17, doubling with each step of N.
const priorMs = (logN: number) => 600 * 2 ** (logN - 17);

/** What the metrics read at scrape time. */
export interface HashQueueStats {
  running: number;
  waiting: number;
  completed: number;
  rejected: number;
}

/**
 * Every scrypt of the process's sign-ins, sign-ups and password changes goes through here: at most `concurrency`
 * at once (libuv runs scrypt on its 4-thread pool, which file reads share, so no more than 3), and at most
 * `queueMax` waiting, and none whose expected wait (the queue ahead over the concurrency, times the recent
 * check time) passes MAX_EXPECTED_WAIT_MS. Beyond that the caller gets a 503 with Retry-After at once.
 */
export class PasswordHasher implements HashQueueStats {
  readonly concurrency: number;
  running = 0;
  completed = 0;
  rejected = 0;
  readonly #logN: number;
  readonly #queueMax: number;
  readonly #waiting: { start(): void; timer: NodeJS.Timeout }[] = [];
  #averageMs: number;
  readonly #metrics: AppMetrics | undefined;
  // What a check of an unknown account compares with: random bytes at the configured cost, so it costs one
  // scrypt like a real check (no hashing needed to make it).
  readonly #dummyHash: string;

  readonly #maxWaitMs: number;

  constructor(options: { logN: number; queueMax: number; concurrency?: number; maxWaitMs?: number; metrics?: AppMetrics }) {
    this.#metrics = options.metrics;
    options.metrics?.gauge("auth_hash_running", () => [{ labels: {}, value: this.running }]);
    options.metrics?.gauge("auth_hash_waiting", () => [{ labels: {}, value: this.waiting }]);
    this.#maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
    this.#logN = options.logN;
    this.#queueMax = options.queueMax;
    this.concurrency = options.concurrency ?? Math.max(1, Math.min(availableParallelism(), 3));
    this.#averageMs = priorMs(options.logN);
    this.#dummyHash = `$scrypt$ln=${options.logN},r=8,p=1$${randomBytes(16).toString("base64")}$${randomBytes(32).toString("base64")}`;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  hash(password: string): Promise<string> {
    return this.#run(() => hashPassword(password, this.#logN));
  }

  async verify(password: string, stored: string | null): Promise<boolean> {
    if (!stored) return false;
    return this.#run(() => verifyPassword(password, stored));
  }

  /** Spends the same time as a real check when there is no such user, so timing does not reveal who exists. */
  async burn(password: string): Promise<void> {
    await this.verify(password, this.#dummyHash);
  }

  #busy(waitMs: number) {
    this.rejected++;
    this.#metrics?.count("auth_hash_rejected_total");
    return authErrors.hashingBusy(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      const ahead = this.#waiting.length;
      const expectedMs = Math.ceil((ahead + 1) / this.concurrency) * this.#averageMs;
      if (ahead >= this.#queueMax || expectedMs > this.#maxWaitMs) throw this.#busy(expectedMs);
      // The slot is handed over by the check that ends, so `running` never dips for a late comer to jump in.
      await new Promise<void>((resolve, reject) => {
        const entry = {
          start: () => {
            clearTimeout(entry.timer);
            resolve();
          },
          timer: setTimeout(() => {
            this.#waiting.splice(this.#waiting.indexOf(entry), 1);
            reject(this.#busy(this.#averageMs));
          }, this.#maxWaitMs),
        };
        this.#waiting.push(entry);
      });
    } else {
      this.running++;
    }
    const started = performance.now();
    try {
      return await work();
    } finally {
      const ms = performance.now() - started;
      // Recent checks weigh most: the time a check takes changes with the machine's other load.
      this.#averageMs = this.#averageMs * 0.7 + ms * 0.3;
      this.#metrics?.observe("auth_hash_duration_seconds", ms / 1000);
      this.completed++;
      const next = this.#waiting.shift();
      if (next) next.start();
      else this.running--;
    }
  }
}
