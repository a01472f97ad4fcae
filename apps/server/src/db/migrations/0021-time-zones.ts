import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: reminders at the person's hour (issue 28). `profiles.time_zone` is the IANA zone the person's browser
 * reported at sign-up or sign-in (null until it does); the country of the phone is only the fallback, and a
 * country's first listed zone put every US number in America/Adak. `reminder_settings.version` counts saves of the
 * rules, so a stale console tab is refused (409) instead of overwriting them, and a run in progress notices the change.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("profiles").addColumn("time_zone", "text").execute();
  await db.schema
    .alterTable("reminder_settings")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
