import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { App, AppDeps } from "../../deps.ts";
import { onMediaEnqueued } from "./enqueue.ts";
import { MediaJobFailure } from "./ffmpeg.ts";
import {
  claimJob,
  failAbandoned,
  finishJob,
  type MediaJobRow,
  type MediaKind,
  nextLeaseEnd,
  reportProgress,
  waitingByKind,
} from "./media.repository.ts";
import { processJob, removeAbandonedWork } from "./media.service.ts";

export interface WorkerOptions {
  /** A job running longer is stopped (ffmpeg killed) and fails as `timed_out`. */
  timeLimitMs: number;
  /** How long a claim holds without news; renewed while the job runs, so only a dead worker's claim lapses. */
  leaseMs: number;
  /** A job whose worker died this many times fails as `crashed`, and waits `crashBackoffMs` before it is tried again. */
  maxAttempts: number;
  crashBackoffMs: number;
  /** The jobs this worker claims: voices or videos (a lane of its own each), or any when unset. */
  lane?: MediaKind;
  /** ffmpeg threads per run. */
  threads: number;
  /**
   * Milliseconds between two looks for jobs other replicas queued (the local queue wakes the worker at once, and a
   * running job's lease wakes it when it lapses).
   */
  pollMs: number;
  now: () => Date;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  timeLimitMs: 60 * 60_000,
  leaseMs: 2 * 60_000,
  maxAttempts: 3,
  crashBackoffMs: 60 * 60_000,
  // One core per job: on a small machine the other stays free for requests; a short clip still takes seconds.
  threads: 1,
  pollMs: 15_000,
  now: () => new Date(),
};

type Deps = Pick<AppDeps, "db" | "database" | "storage"> & Partial<Pick<AppDeps, "metrics">>;

/**
 * One replica's media worker: one job at a time (ffmpeg already uses the cores it is given). Jobs are claimed in
 * the database (media.repository.ts `claimJob`), so any replica may take any job and each runs once; a claim is
 * renewed while its job runs and lapses when the replica dies, and then another worker takes it again.
 */
export class MediaWorker {
  readonly id = `media-${randomUUID().slice(0, 8)}`;
  private readonly options: WorkerOptions;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly closing = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private lapse: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  private readonly deps: Deps;
  private readonly log: Pick<FastifyBaseLogger, "info" | "warn" | "error">;

  constructor(deps: Deps, log: Pick<FastifyBaseLogger, "info" | "warn" | "error">, options: Partial<WorkerOptions> = {}) {
    this.deps = deps;
    this.log = log;
    this.options = { ...DEFAULT_WORKER_OPTIONS, ...options };
  }

  /** Looks for work now, on every local enqueue, and every `pollMs`. */
  start(): void {
    this.unsubscribe = onMediaEnqueued(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Kills a running ffmpeg and waits for the worker to let go; the job's lease lapses and another replica resumes it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    if (this.lapse) clearTimeout(this.lapse);
    this.closing.abort(new Error("The server is closing"));
    await this.running;
  }

  /** Runs jobs until none is left; a wake during a run makes it look once more. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        for (;;) {
          do {
            this.again = false;
            while (!this.stopped && (await this.runOne())) {}
          } while (this.again && !this.stopped);
          if (this.stopped) break;
          await this.watchLeases();
          // A wake while the leases were read: look once more.
          if (!this.again) break;
        }
      } catch (error) {
        if (!this.stopped) this.log.error({ err: error }, "media worker could not claim a job");
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /**
   * With nothing to claim, the running jobs' leases say when a job may next come free: a replica that died (or this
   * one before a restart) leaves its job to lapse, and this worker looks again at that moment instead of at its
   * next poll. A lease renewed meanwhile only means one more look that finds nothing.
   */
  private async watchLeases(): Promise<void> {
    const until = await nextLeaseEnd(this.deps.db, this.options.lane);
    if (this.lapse) clearTimeout(this.lapse);
    this.lapse = null;
    if (!until || this.stopped) return;
    const delay = Math.max(250, Date.parse(until) - this.options.now().getTime() + 50);
    if (delay >= this.options.pollMs) return;
    this.lapse = setTimeout(() => void this.wake(), delay);
    this.lapse.unref();
  }

  /** Claims and runs one job; false when there was none. */
  async runOne(): Promise<boolean> {
    const now = this.options.now();
    await failAbandoned(this.deps.db, { now: now.toISOString(), maxAttempts: this.options.maxAttempts });
    const job = await claimJob(this.deps.db, this.deps.database.dialect, {
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.options.leaseMs).toISOString(),
      worker: this.id,
      crashedBefore: new Date(now.getTime() - this.options.crashBackoffMs).toISOString(),
      kind: this.options.lane,
    });
    if (!job) return false;
    this.log.info({ job: job.id, key: job.object_key, worker: this.id, attempt: job.attempts }, "media job started");
    await this.run(job);
    return true;
  }

  #timed(job: MediaJobRow, started: number, outcome: "ready" | "failed") {
    this.deps.metrics?.observe("media_job_duration_seconds", (Date.now() - started) / 1000, { lane: job.kind, outcome });
  }

  private async run(job: MediaJobRow): Promise<void> {
    const started = Date.now();
    const controller = new AbortController();
    const limit = setTimeout(
      () => controller.abort(new MediaJobFailure("timed_out", `Stopped after ${Math.round(this.options.timeLimitMs / 1000)} s`)),
      this.options.timeLimitMs,
    );
    const signal = AbortSignal.any([controller.signal, this.closing.signal]);
    let progress = 0;
    // The heartbeat renews the lease and writes progress; a claim found lost (a worker took over after a
    // stall) stops this run, so the job's outcome is written once.
    const beat = async () => {
      const now = this.options.now();
      const held = await reportProgress(
        this.deps.db,
        job.id,
        this.id,
        progress,
        now.toISOString(),
        new Date(now.getTime() + this.options.leaseMs).toISOString(),
      ).catch(() => true);
      if (!held) controller.abort(new Error("The claim was taken over"));
    };
    const heartbeat = setInterval(() => void beat(), Math.max(250, Math.min(5_000, this.options.leaseMs / 4)));
    try {
      const outputs = await processJob(this.deps, job, {
        signal,
        threads: this.options.threads,
        onProgress: (fraction) => {
          progress = Math.max(progress, Math.min(99, Math.floor(fraction * 100)));
        },
      });
      clearInterval(heartbeat);
      const written = await finishJob(this.deps.db, job.id, this.id, {
        status: "ready",
        outputs: JSON.stringify(outputs),
        now: this.options.now().toISOString(),
      });
      if (!written) {
        this.log.warn({ job: job.id, worker: this.id }, "media job finished after its claim was taken over");
        return;
      }
      this.#timed(job, started, "ready");
      this.log.info(
        { job: job.id, key: job.object_key, worker: this.id, attempt: job.attempts, ms: Date.now() - started },
        "media job ready",
      );
    } catch (error) {
      clearInterval(heartbeat);
      // Closing: leave the claim to lapse, so a replica (or this one, restarted) takes the job again.
      if (this.closing.signal.aborted) return;
      // An abort for the time limit may surface as the interrupted step's own error (a stream's AbortError).
      const reason: unknown = controller.signal.reason;
      const failure = error instanceof MediaJobFailure ? error : reason instanceof MediaJobFailure ? reason : null;
      if (!failure && controller.signal.aborted) return; // taken over: the other worker records the outcome
      if (!failure) this.log.error({ err: error, job: job.id }, "media job failed unexpectedly");
      await finishJob(this.deps.db, job.id, this.id, {
        status: "failed",
        errorCode: failure?.reason ?? "failed",
        error: failure?.message ?? (error instanceof Error ? error.message : String(error)),
        now: this.options.now().toISOString(),
      });
      this.#timed(job, started, "failed");
      this.log.warn({ job: job.id, key: job.object_key, reason: failure?.reason }, "media job failed");
    } finally {
      clearTimeout(limit);
    }
  }
}

/**
 * One replica's workers: `videos` for story videos and the console's other videos, `voices` for every voice, each a
 * lane of its own (MEDIA_VIDEO_CONCURRENCY, MEDIA_VOICE_CONCURRENCY: 1 and 1), so a family's voice message is never
 * queued behind an hour of transcoding. Also the one sweep of this machine's abandoned work folders: at start and
 * every `workSweepMs`, not only at the next start (a replica that runs for weeks would otherwise keep a killed job's
 * copy of its upload, up to 1 GB, all that time).
 */
export class MediaWorkers {
  readonly workers: MediaWorker[];
  private readonly log: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
  private readonly options: GroupOptions;
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<unknown> | null = null;

  constructor(deps: Deps, log: Pick<FastifyBaseLogger, "info" | "warn" | "error">, options: Partial<GroupOptions> = {}) {
    this.log = log;
    this.options = { ...DEFAULT_GROUP_OPTIONS, ...options };
    const lane = (kind: MediaKind, count: number) =>
      Array.from({ length: count }, () => new MediaWorker(deps, log, { ...this.options, lane: kind }));
    this.workers = [...lane("video", this.options.videoConcurrency), ...lane("audio", this.options.voiceConcurrency)];
  }

  start(): void {
    this.sweep();
    this.sweeper = setInterval(() => this.sweep(), this.options.workSweepMs);
    this.sweeper.unref();
    for (const worker of this.workers) worker.start();
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.workers.map((w) => w.stop()), this.sweeping]);
  }

  /** Removes the work folders (and upload spools) untouched for longer than a job may run: their job is dead. */
  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = removeAbandonedWork(this.options.timeLimitMs, this.options.now().getTime())
      .then(
        (removed) => removed > 0 && this.log.info({ removed }, "removed the work folders of media jobs that died"),
        (error: unknown) => this.log.warn({ err: error }, "could not clear old media work folders"),
      )
      .finally(() => {
        this.sweeping = null;
      });
  }
}

export interface GroupOptions extends WorkerOptions {
  videoConcurrency: number;
  voiceConcurrency: number;
  /** Milliseconds between two sweeps of abandoned work folders. */
  workSweepMs: number;
}

const DEFAULT_GROUP_OPTIONS: GroupOptions = {
  ...DEFAULT_WORKER_OPTIONS,
  videoConcurrency: 1,
  voiceConcurrency: 1,
  workSweepMs: 10 * 60_000,
};

const groups = new WeakMap<App, MediaWorkers>();

/** The workers an app started (tests stop them to drive their own with a clock and limits). */
export const mediaWorkerOf = (app: App): MediaWorkers | undefined => groups.get(app);

/** This replica's workers, from start-up until the server closes (a running ffmpeg is killed on close). */
export function startMediaWorker(app: App, options: Partial<GroupOptions> = {}): MediaWorkers {
  const group = new MediaWorkers(app.deps, app.log, options);
  app.deps.metrics.gauge("media_queue_depth", async () =>
    (await waitingByKind(app.deps.db)).map((lane) => ({ labels: { lane: lane.kind }, value: lane.count })),
  );
  groups.set(app, group);
  group.start();
  app.addHook("onClose", async () => group.stop());
  return group;
}
