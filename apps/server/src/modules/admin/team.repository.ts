import type { DB } from "../../db/database.ts";

/** The console's operators: accounts whose app_metadata names a console role (stored as compact JSON). */
export async function listOperatorRows(db: DB) {
  return db
    .selectFrom("users as u")
    .leftJoin("profiles as p", "p.user_id", "u.id")
    .select([
      "u.id",
      "u.email",
      "u.phone",
      "u.app_metadata",
      "u.user_metadata",
      "u.email_confirmed_at",
      "u.phone_confirmed_at",
      "u.last_sign_in_at",
      "p.name",
      // Whether, not what: the hash never leaves the repository.
      (eb) => eb("u.encrypted_password", "is not", null).as("has_password"),
    ])
    .where("u.deleted_at", "is", null)
    .where((eb) =>
      eb.or([eb("u.app_metadata", "like", '%"role":"admin"%'), eb("u.app_metadata", "like", '%"role":"facilitator"%')]),
    )
    .orderBy("u.created_at", "asc")
    .execute();
}

export async function findUserMetadata(db: DB, id: string) {
  return db
    .selectFrom("users")
    .select(["id", "app_metadata"])
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}
