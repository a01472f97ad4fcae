import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: the words of the program's other voices (issue 39, WCAG 1.2.1), as 0030 gave answers theirs. A family
 * member's answer on the characters screen (`landing_answers`) and the Message Center greeting (its `documents` row,
 * `greetingAudio`; the other documents leave them null) and a story's question video (`questions`) have a transcript
 * per language, typed by operators; null when none. The length bound is the contract's (packages/contracts `TRANSCRIPT_MAX`). Additive only.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("landing_answers").addColumn("transcript_en", "text").execute();
  await db.schema.alterTable("landing_answers").addColumn("transcript_ar", "text").execute();
  await db.schema.alterTable("documents").addColumn("transcript_en", "text").execute();
  await db.schema.alterTable("documents").addColumn("transcript_ar", "text").execute();
  await db.schema.alterTable("questions").addColumn("transcript_en", "text").execute();
  await db.schema.alterTable("questions").addColumn("transcript_ar", "text").execute();
}
