import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: no lost edits in the console. `version` counts the saves of a story and of the site settings; a save
 * names the version it was editing and is refused (409) when another save came first. 0 until the first save.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("stories")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("site_settings")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
