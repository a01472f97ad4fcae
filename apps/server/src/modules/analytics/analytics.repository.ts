import type { Insertable, Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

export async function insertEvents(db: Kysely<Database>, rows: Insertable<Database["analytics_events"]>[]) {
  if (rows.length) await db.insertInto("analytics_events").values(rows).execute();
}
