import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: story videos from the operator's own CDN (issue 27). `site_settings.video_origins` lists, one per line, the
 * https origins a story's video or thumbnail may come from besides YouTube, Vimeo and the app's storage; the CSP's
 * media-src and img-src name them. Empty: none.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("site_settings")
    .addColumn("video_origins", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}
