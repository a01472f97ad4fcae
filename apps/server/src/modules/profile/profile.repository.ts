import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

type Db = Kysely<Database>;

export async function findProfileRow(db: Db, userId: string) {
  return db
    .selectFrom("users")
    .leftJoin("profiles", "profiles.user_id", "users.id")
    .select([
      "users.id",
      "users.email",
      "users.phone",
      "profiles.name",
      "profiles.city",
      "profiles.gender",
      "profiles.age_group",
      "profiles.country_code",
      "profiles.phone_number",
    ])
    .where("users.id", "=", userId)
    .where("users.deleted_at", "is", null)
    .executeTakeFirst();
}

/** Writes the given profile fields, creating the profile row if the person has none yet. */
export async function upsertProfileFields(
  db: Db,
  userId: string,
  fields: Partial<{ name: string; city: string; gender: string; age_group: string; time_zone: string }>,
) {
  const now = new Date().toISOString();
  await db
    .insertInto("profiles")
    .values({ user_id: userId, ...fields, from_landing_page: 0, agree_to_reminder: 1, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ ...fields, updated_at: now }))
    .execute();
}
