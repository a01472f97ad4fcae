import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: stories on thin and metered connections (issue 38). `profiles.viewing_mode` is the quality a person chose
 * ("best", "save_data", "audio_only"; null: never chosen, the browser's Save-Data decides). `playback_positions`
 * holds where each person stopped in each story, in whole seconds, so a story resumes there on any device; it is
 * not progress (a story is watched only when it ends), so it has its own rows, gone with the account.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("profiles").addColumn("viewing_mode", "text").execute();
  await db.schema
    .createTable("playback_positions")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("story_id", "text", (c) => c.notNull())
    .addColumn("seconds", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("playback_positions_pk", ["user_id", "story_id"])
    .execute();
}
