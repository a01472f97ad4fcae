import { sql } from "kysely";
import type { DB } from "../../db/database.ts";

/** Aggregates for the console's charts. `from`/`to` are ISO instants; times are ISO text in both dialects. */
export interface Range {
  from: string;
  to: string;
}

const day = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

export async function countEvents(db: DB, name: string, range: Range) {
  const row = await db
    .selectFrom("analytics_events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("name", "=", name)
    .where("created_at", ">=", range.from)
    .where("created_at", "<", range.to)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** People who signed up in the range; operators (admins and facilitators) are not counted. */
export async function signupsPerDay(db: DB, range: Range) {
  return db
    .selectFrom("users")
    .select([day("created_at").as("day"), (eb) => eb.fn.countAll<number>().as("n")])
    .where("created_at", ">=", range.from)
    .where("created_at", "<", range.to)
    .where("app_metadata", "not like", '%"role":"admin"%')
    .where("app_metadata", "not like", '%"role":"facilitator"%')
    .where("deleted_at", "is", null)
    .groupBy(day("created_at"))
    .execute();
}

/**
 * Distinct people who watched each published story (to its end) in the range, by the story's current order. Drafts
 * are left out of every story figure: families never see one (only an operator's preview can watch or record on it),
 * and published stories hold the orders 1…p families see (modules/stories).
 */
export async function watchersPerStory(db: DB, range: Range) {
  return db
    .selectFrom("progress as p")
    .innerJoin("stories as s", "s.id", "p.story_id")
    .select(["s.id", "s.position", "s.title_en", (eb) => eb.fn.count<number>("p.user_id").distinct().as("n")])
    .where("s.published", "=", 1)
    .where("p.watched_at", ">=", range.from)
    .where("p.watched_at", "<", range.to)
    .groupBy(["s.id", "s.position", "s.title_en"])
    .orderBy("s.position")
    .execute();
}

/** The stories families see, in their order. */
export async function publishedStories(db: DB) {
  return db
    .selectFrom("stories")
    .select(["id", "position", "title_en", "title_ar"])
    .where("published", "=", 1)
    .orderBy("position")
    .execute();
}

/** Recordings made in the range on each published story. */
export async function recordingsPerStory(db: DB, range: Range) {
  return db
    .selectFrom("recordings as r")
    .innerJoin("stories as s", "s.id", "r.story_id")
    .select(["r.story_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("s.published", "=", 1)
    .where("r.created_at", ">=", range.from)
    .where("r.created_at", "<", range.to)
    .groupBy("r.story_id")
    .execute();
}

export async function messagesPerDay(db: DB, range: Range) {
  return db
    .selectFrom("messages")
    .select([day("created_at").as("day"), (eb) => eb.fn.countAll<number>().as("n")])
    .where("created_at", ">=", range.from)
    .where("created_at", "<", range.to)
    .groupBy(day("created_at"))
    .execute();
}
