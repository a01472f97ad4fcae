import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: media in both languages. The existing columns keep the English (and default) file; these hold the
 * Arabic one, null when there is none, in which case Arabic readers get the English file. Additive only, so
 * rows written before stay valid and older servers can still read the table.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("stories").addColumn("video_url_ar", "text").execute();
  await db.schema.alterTable("stories").addColumn("thumbnail_path_ar", "text").execute();
  await db.schema.alterTable("questions").addColumn("media_path_ar", "text").execute();
  await db.schema.alterTable("instructions").addColumn("media_path_ar", "text").execute();
  await db.schema.alterTable("documents").addColumn("path_ar", "text").execute();
}
