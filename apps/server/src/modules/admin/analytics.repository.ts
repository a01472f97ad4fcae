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

/**
 * Each time a family began waiting in the range: a family message whose conversation's message before it is the
 * team's (or none), so a run of messages waits from its first. `answered_at` is the team's next reply, null while
 * none came. Bounded by the range; the previous message and the reply are index seeks on (user_id, id).
 */
export async function waitsStarted(db: DB, range: Range) {
  const asked = db
    .selectFrom("messages as m")
    .select((eb) => [
      "m.created_at as asked_at",
      eb
        .selectFrom("messages as b")
        .select("b.sender_role")
        .whereRef("b.user_id", "=", "m.user_id")
        .whereRef("b.id", "<", "m.id")
        .orderBy("b.id", "desc")
        .limit(1)
        .as("before_role"),
      eb
        .selectFrom("messages as r")
        .select((e) => e.fn.min<string>("r.created_at").as("at"))
        .whereRef("r.user_id", "=", "m.user_id")
        .whereRef("r.id", ">", "m.id")
        .where("r.sender_role", "=", "facilitator")
        .as("answered_at"),
    ])
    .where("m.sender_role", "=", "user")
    .where("m.created_at", ">=", range.from)
    .where("m.created_at", "<", range.to);
  return db
    .selectFrom(asked.as("w"))
    .select(["w.asked_at", "w.answered_at"])
    .where((eb) => eb.or([eb("w.before_role", "is", null), eb("w.before_role", "!=", "user")]))
    .execute();
}

/**
 * The conversations whose family waits for the team now (the newest message is theirs), the longest wait first:
 * `waiting_since` is their first message after the team's last reply.
 */
export async function longestWaiting(db: DB, limit: number) {
  const lastReply = sql<number>`coalesce((select max(f.id) from messages f where f.user_id = c.user_id and f.sender_role = 'facilitator'), 0)`;
  return db
    .selectFrom("conversations as c")
    .innerJoin("users as u", "u.id", "c.user_id")
    .leftJoin("profiles as p", "p.user_id", "c.user_id")
    .select((eb) => [
      "c.user_id",
      "p.name",
      "u.phone",
      eb
        .selectFrom("messages as m")
        .select((e) => e.fn.min<string>("m.created_at").as("at"))
        .whereRef("m.user_id", "=", "c.user_id")
        .where("m.id", ">", lastReply)
        .as("waiting_since"),
    ])
    .where("c.last_user_message_id", ">", 0)
    .whereRef("c.last_message_id", "=", "c.last_user_message_id")
    .where("u.deleted_at", "is", null)
    .orderBy("waiting_since")
    .orderBy("c.user_id")
    .limit(limit)
    .execute();
}
