import type { Kysely } from "kysely";
import { likeContains } from "../../db/dialect.ts";
import type { Database } from "../../db/schema.ts";

type Db = Kysely<Database>;

/** What a search looks for: the text in names and e-mails, and digit strings in the stored phone numbers. */
export interface PeopleSearch {
  text: string;
  phoneDigits: string[];
}

function baseQuery(db: Db, search: PeopleSearch | undefined) {
  let query = db.selectFrom("users").leftJoin("profiles", "profiles.user_id", "users.id").where("users.deleted_at", "is", null);
  if (search) {
    query = query.where((eb) =>
      eb.or([
        likeContains("users.email", search.text),
        likeContains("profiles.name", search.text),
        ...search.phoneDigits.flatMap((digits) => [
          likeContains("users.phone", digits),
          likeContains("profiles.phone_number", digits),
        ]),
      ]),
    );
  }
  return query;
}

// The scalar subqueries correlate with the outer `users` row.
const columns = (db: Db) =>
  [
    "users.id",
    "users.email",
    "users.phone",
    "users.app_metadata",
    "users.created_at",
    "users.last_sign_in_at",
    "users.banned_until",
    "profiles.name",
    "profiles.phone_number",
    "profiles.country_code",
    "profiles.from_landing_page",
    db
      .selectFrom("progress")
      .innerJoin("stories", "stories.id", "progress.story_id")
      .select((eb) => eb.fn.max("stories.position").as("m"))
      .where((eb) => eb("progress.user_id", "=", eb.ref("users.id" as "progress.user_id")))
      .as("last_watched"),
    db
      .selectFrom("progress")
      .innerJoin("stories", "stories.id", "progress.story_id")
      .select((eb) => eb.fn.countAll().as("c"))
      .where((eb) => eb("progress.user_id", "=", eb.ref("users.id" as "progress.user_id")))
      .as("watched_count"),
  ] as const;

/**
 * The console's People list asks for families only: operators (admins and facilitators, app_metadata.role, stored as
 * JSON text the way team.repository.ts reads it) are on the Team page. The spec's plain GET /users lists everyone.
 */
const listQuery = (db: Db, search: PeopleSearch | undefined, familiesOnly: boolean) =>
  familiesOnly
    ? baseQuery(db, search)
        .where("users.app_metadata", "not like", '%"role":"admin"%')
        .where("users.app_metadata", "not like", '%"role":"facilitator"%')
    : baseQuery(db, search);

export async function listUsers(
  db: Db,
  options: { limit: number; offset: number; search?: PeopleSearch; familiesOnly?: boolean },
) {
  const [rows, total] = await Promise.all([
    listQuery(db, options.search, options.familiesOnly ?? false)
      .select(columns(db))
      .orderBy("users.created_at", "desc")
      .orderBy("users.id")
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    listQuery(db, options.search, options.familiesOnly ?? false)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function findUser(db: Db, id: string) {
  return baseQuery(db, undefined).select(columns(db)).where("users.id", "=", id).executeTakeFirst();
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof findUser>>>;
