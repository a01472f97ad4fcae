import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: users' story recordings (spec: /story/audio/add). The bytes live in the private `recordings`
 * bucket under `object_key`; this row is written only after the file is whole. `story_id` carries no
 * foreign key, like progress: a recording outlives a story an operator removes.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("recordings")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("story_id", "text", (c) => c.notNull())
    .addColumn("question_index", "integer")
    .addColumn("object_key", "text", (c) => c.notNull().unique())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("duration_seconds", "real")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("recordings_user_time_idx").on("recordings").columns(["user_id", "created_at"]).execute();
  await db.schema.createIndex("recordings_story_idx").on("recordings").columns(["story_id"]).execute();
}
