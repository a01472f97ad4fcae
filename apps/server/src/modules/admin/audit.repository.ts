import type { DB } from "../../db/database.ts";

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

export async function listAuditEntries(db: DB, options: { limit: number; before?: number; action?: string }) {
  let query = db.selectFrom("admin_audit_log").selectAll().orderBy("id", "desc").limit(options.limit);
  if (options.before) query = query.where("id", "<", options.before);
  if (options.action) query = query.where("action", "like", `${options.action}%`);
  return query.execute();
}
