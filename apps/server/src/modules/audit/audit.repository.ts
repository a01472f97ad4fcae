import type { DB } from "../../db/database.ts";
import { likeContains, likeStartsWith } from "../../db/dialect.ts";

export interface AuditRow {
  actor_id: string;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

export async function insertAuditEntry(db: DB, row: AuditRow, now = new Date().toISOString()): Promise<void> {
  await db
    .insertInto("admin_audit_log")
    .values({ ...row, details: JSON.stringify(row.details), created_at: now })
    .execute();
}

/**
 * Newest first, `limit` rows after the entry `afterId` (exclusive). Each row carries the actor's display name and
 * what its target is called now (a story's title, for a question its story's, a family member's name, a person's
 * profile name), which the search also looks in.
 */
export async function listAuditEntries(db: DB, options: { limit: number; afterId?: number; action?: string; q?: string }) {
  let query = db
    .selectFrom("admin_audit_log as a")
    .leftJoin("profiles as p", "p.user_id", "a.actor_id")
    .leftJoin("users as u", "u.id", "a.actor_id")
    .leftJoin("stories as s", (join) => join.onRef("s.id", "=", "a.target_id").on("a.target_type", "=", "story"))
    .leftJoin("questions as qn", (join) => join.onRef("qn.id", "=", "a.target_id").on("a.target_type", "=", "question"))
    .leftJoin("stories as qs", "qs.id", "qn.story_id")
    .leftJoin("characters as c", (join) => join.onRef("c.id", "=", "a.target_id").on("a.target_type", "=", "character"))
    .leftJoin("profiles as tp", (join) =>
      join.onRef("tp.user_id", "=", "a.target_id").on("a.target_type", "in", ["user", "conversation"]),
    )
    .selectAll("a")
    .select([
      "p.name as actor_name",
      "u.phone as actor_phone",
      (eb) => eb.fn.coalesce("s.title_en", "qs.title_en", "c.name_en", "tp.name").as("target_name_en"),
      (eb) => eb.fn.coalesce("s.title_ar", "qs.title_ar", "c.name_ar", "tp.name").as("target_name_ar"),
    ])
    .orderBy("a.id", "desc")
    .limit(options.limit);
  if (options.afterId !== undefined) query = query.where("a.id", "<", options.afterId);
  const action = options.action;
  if (action) query = query.where(likeStartsWith("a.action", action));
  const q = options.q;
  if (q)
    query = query.where((eb) =>
      eb.or(
        (
          [
            "a.action",
            "a.actor_email",
            "p.name",
            "u.phone",
            "a.target_id",
            "a.details",
            "s.title_en",
            "s.title_ar",
            "qs.title_en",
            "qs.title_ar",
            "c.name_en",
            "c.name_ar",
            "tp.name",
          ] as const
        ).map((column) => likeContains(column, q)),
      ),
    );
  return query.execute();
}
