import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: drafts and versioned questions and answers (issue 17). `published` is 1 for a story families see and
 * 0 for a draft; every story before this migration, and the demo seed, is published. Questions and answers count
 * their saves in `version` like stories (0012), so a stale save is refused instead of overwriting another's.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("stories")
    .addColumn("published", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("questions")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("answers")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
