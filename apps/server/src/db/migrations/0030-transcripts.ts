import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: the words of the voices (issue 39, WCAG 1.2.1). A family member's answer has a transcript per language
 * (`transcript_en`, `transcript_ar`), typed by operators; a family's own recording has the words its storyteller
 * typed (`transcript`, in whatever language they spoke) and counts its saves in `version` so a stale save is refused.
 * Null when none; the length bound is the contract's (packages/contracts `TRANSCRIPT_MAX`). Additive only.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("answers").addColumn("transcript_en", "text").execute();
  await db.schema.alterTable("answers").addColumn("transcript_ar", "text").execute();
  await db.schema.alterTable("recordings").addColumn("transcript", "text").execute();
  await db.schema
    .alterTable("recordings")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
