import type { DB } from "../../db/database.ts";

export async function findInstruction(db: DB, location: string) {
  return db.selectFrom("instructions").select(["location", "media_path"]).where("location", "=", location).executeTakeFirst();
}
