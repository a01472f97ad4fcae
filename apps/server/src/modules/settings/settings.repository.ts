import type { DB } from "../../db/database.ts";
import type { SiteSettingsTable } from "../../db/schema.ts";

const ROW_ID = 1;

export async function findSiteSettings(db: DB): Promise<SiteSettingsTable | undefined> {
  return db.selectFrom("site_settings").selectAll().where("id", "=", ROW_ID).executeTakeFirst();
}

export async function upsertSiteSettings(db: DB, values: Omit<SiteSettingsTable, "id">): Promise<void> {
  await db
    .insertInto("site_settings")
    .values({ id: ROW_ID, ...values })
    .onConflict((oc) => oc.column("id").doUpdateSet(values))
    .execute();
}
