import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: `media_jobs`, one processing job per uploaded video or audio file (modules/media). The source is a
 * stored object (`bucket`, `object_key`, unique: uploading or attaching the same file twice makes one job);
 * `status` waiting → processing → ready | failed. A claim sets `claimed_by` and `lease_until`; a claim whose
 * lease has passed (its replica died) is taken again, `attempts` counts the claims so a file that kills every
 * worker fails instead of looping. `outputs` is JSON (playlist, poster, duration, audio copy), `error_code` a
 * stable reason the console translates.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("media_jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("bucket", "text", (c) => c.notNull())
    .addColumn("object_key", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("progress", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("claimed_by", "text")
    .addColumn("lease_until", "text")
    .addColumn("outputs", "text")
    .addColumn("error_code", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("media_jobs_source_unique", ["bucket", "object_key"])
    .execute();
  await db.schema.createIndex("media_jobs_status_idx").on("media_jobs").columns(["status", "created_at"]).execute();
}
