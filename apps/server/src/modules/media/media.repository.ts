import type { Bucket, MediaFailure, MediaJobStatus } from "@hikaya/contracts";
import type { Kysely, Selectable } from "kysely";
import type { DB } from "../../db/database.ts";
import { type DialectName, isUniqueViolation, supportsSkipLocked } from "../../db/dialect.ts";

/** The table of migration 0023, kept here: no other module reads it. */
export interface MediaJobsTable {
  id: string;
  bucket: string;
  object_key: string;
  kind: MediaKind;
  status: MediaJobStatus;
  progress: number;
  attempts: number;
  claimed_by: string | null;
  lease_until: string | null;
  outputs: string | null;
  error_code: MediaFailure | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}
export type MediaKind = "video" | "audio";
export type MediaJobRow = Selectable<MediaJobsTable>;

type MediaDb = Kysely<{ media_jobs: MediaJobsTable }>;
const jobs = (db: DB): MediaDb => db.withTables<{ media_jobs: MediaJobsTable }>() as unknown as MediaDb;

/** Creates the job for a source unless it has one (the same file attached twice, or two replicas at once). */
export async function insertJob(db: DB, source: { bucket: Bucket; key: string; kind: MediaKind }, now: string) {
  try {
    await jobs(db)
      .insertInto("media_jobs")
      .values({
        id: crypto.randomUUID(),
        bucket: source.bucket,
        object_key: source.key,
        kind: source.kind,
        status: "waiting",
        progress: 0,
        attempts: 0,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["bucket", "object_key"]).doNothing())
      .execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

export async function findJobs(db: DB, sources: { bucket: string; key: string }[]): Promise<MediaJobRow[]> {
  if (sources.length === 0) return [];
  return jobs(db)
    .selectFrom("media_jobs")
    .selectAll()
    .where((eb) => eb.or(sources.map((s) => eb.and([eb("bucket", "=", s.bucket), eb("object_key", "=", s.key)]))))
    .execute();
}

/**
 * Fails every job whose lease ran out after its last allowed attempt as `crashed`: each worker that took it stopped
 * (killed, restarted) before finishing. `claimJob` takes it again after a back-off, since a server restarted three
 * times under a long job says nothing about its file.
 */
export async function failAbandoned(db: DB, options: { now: string; maxAttempts: number }): Promise<void> {
  await jobs(db)
    .updateTable("media_jobs")
    .set({
      status: "failed",
      error_code: "crashed",
      error: `Stopped unfinished ${options.maxAttempts} times`,
      claimed_by: null,
      lease_until: null,
      updated_at: options.now,
    })
    .where("status", "=", "processing")
    .where("lease_until", "<", options.now)
    .where("attempts", ">=", options.maxAttempts)
    .execute();
}

/**
 * Claims the oldest waiting job, or one whose claim's lease ran out (its replica died), or one that `crashed` before
 * `crashedBefore` (its servers died under it: a restart, a deploy, not the file; it is tried again after a back-off
 * with a fresh count), for one worker until `leaseUntil`. `kind` keeps a lane to its own jobs (voices never wait
 * behind a video); none claims any. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets replicas claim different jobs at the
 * same moment; on SQLite the one writer makes the transaction exclusive (the reminders queue's discipline).
 */
export async function claimJob(
  db: DB,
  dialect: DialectName,
  options: { now: string; leaseUntil: string; worker: string; crashedBefore?: string; kind?: MediaKind },
): Promise<MediaJobRow | null> {
  return db.transaction().execute(async (trx) => {
    const t = trx.withTables<{ media_jobs: MediaJobsTable }>();
    const row = await t
      .selectFrom("media_jobs")
      .select(["id", "attempts", "status"])
      .where((eb) =>
        eb.or([
          eb("status", "=", "waiting"),
          eb.and([eb("status", "=", "processing"), eb("lease_until", "<", options.now)]),
          ...(options.crashedBefore
            ? [
                eb.and([
                  eb("status", "=", "failed"),
                  eb("error_code", "=", "crashed"),
                  eb("updated_at", "<", options.crashedBefore),
                ]),
              ]
            : []),
        ]),
      )
      .$if(options.kind !== undefined, (qb) => qb.where("kind", "=", options.kind as MediaKind))
      .orderBy("created_at")
      .orderBy("id")
      .limit(1)
      .$if(supportsSkipLocked(dialect), (qb) => qb.forUpdate().skipLocked())
      .executeTakeFirst();
    if (!row) return null;
    const claimed = await t
      .updateTable("media_jobs")
      .set({
        status: "processing",
        progress: 0,
        attempts: row.status === "failed" ? 1 : row.attempts + 1,
        error_code: null,
        error: null,
        claimed_by: options.worker,
        lease_until: options.leaseUntil,
        updated_at: options.now,
      })
      .where("id", "=", row.id)
      .returningAll()
      .executeTakeFirst();
    return claimed ?? null;
  });
}

/** When the earliest running job's lease (of one kind, or any) runs out (as stored), or null when none is running. */
export async function nextLeaseEnd(db: DB, kind?: MediaKind): Promise<string | null> {
  const row = await jobs(db)
    .selectFrom("media_jobs")
    .select((eb) => eb.fn.min("lease_until").as("until"))
    .where("status", "=", "processing")
    .$if(kind !== undefined, (qb) => qb.where("kind", "=", kind as MediaKind))
    .executeTakeFirst();
  return row?.until ?? null;
}

/** Removes the jobs of these sources (a deleted account's recordings and voice messages). */
export async function deleteJobs(db: DB, sources: { bucket: string; key: string }[]): Promise<number> {
  let removed = 0;
  // In slices: a long list must not become one statement with thousands of parameters.
  for (let at = 0; at < sources.length; at += 200) {
    const slice = sources.slice(at, at + 200);
    const result = await jobs(db)
      .deleteFrom("media_jobs")
      .where((eb) => eb.or(slice.map((s) => eb.and([eb("bucket", "=", s.bucket), eb("object_key", "=", s.key)]))))
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}

/**
 * Records progress and renews the lease, only while this worker holds the claim. Returns false once it does not
 * (its lease lapsed and another worker took the job).
 */
export async function reportProgress(
  db: DB,
  id: string,
  worker: string,
  progress: number,
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  const result = await jobs(db)
    .updateTable("media_jobs")
    .set({ progress, lease_until: leaseUntil, updated_at: now })
    .where("id", "=", id)
    .where("claimed_by", "=", worker)
    .where("status", "=", "processing")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Writes a job's outcome, only while this worker still holds the claim. Returns whether it did. */
export async function finishJob(
  db: DB,
  id: string,
  worker: string,
  outcome:
    | { status: "ready"; outputs: string; now: string }
    | { status: "failed"; errorCode: MediaFailure; error: string; now: string },
): Promise<boolean> {
  const result = await jobs(db)
    .updateTable("media_jobs")
    .set({
      status: outcome.status,
      progress: outcome.status === "ready" ? 100 : 0,
      outputs: outcome.status === "ready" ? outcome.outputs : null,
      error_code: outcome.status === "failed" ? outcome.errorCode : null,
      error: outcome.status === "failed" ? outcome.error.slice(0, 500) : null,
      claimed_by: null,
      lease_until: null,
      updated_at: outcome.now,
    })
    .where("id", "=", id)
    .where("claimed_by", "=", worker)
    .where("status", "=", "processing")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Jobs waiting for a worker, per lane (kind), for /metrics: read at each scrape, never per request. */
export async function waitingByKind(db: DB): Promise<{ kind: MediaKind; count: number }[]> {
  const rows = await jobs(db)
    .selectFrom("media_jobs")
    .select((eb) => ["kind", eb.fn.countAll<number | string>().as("count")])
    .where("status", "=", "waiting")
    .groupBy("kind")
    .execute();
  return rows.map((row) => ({ kind: row.kind, count: Number(row.count) }));
}
