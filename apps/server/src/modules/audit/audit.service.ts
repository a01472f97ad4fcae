import type { AuditPage } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { decodeCursor, pageOf, searchText } from "../../db/paging.ts";
import type { AuthContext } from "../auth/guards.ts";
import { insertAuditEntry, listAuditEntries } from "./audit.repository.ts";

/** Who acts, as the audit log records them. */
export interface Actor {
  id: string;
  email: string | null;
}

export const actorOf = (auth: AuthContext): Actor => ({ id: auth.userId, email: auth.claims.email || null });

/**
 * Records one admin action. Call it with the transaction that makes the change, so the entry and the
 * change commit (or roll back) together.
 */
export async function audit(
  db: DB,
  actor: Actor,
  action: string,
  target: { type: string; id?: string | null },
  details: Record<string, unknown> = {},
): Promise<void> {
  await insertAuditEntry(db, {
    actor_id: actor.id,
    actor_email: actor.email,
    action,
    target_type: target.type,
    target_id: target.id ?? null,
    details,
  });
}

/** One page of the log, newest first; `cursor` continues after the previous page, `q` searches it. */
export async function listAudit(
  db: DB,
  options: { limit: number; cursor?: string; action?: string; q?: string },
): Promise<AuditPage> {
  const q = searchText(options.q);
  const afterId = options.cursor ? decodeCursor<[number]>(options.cursor, ["number"])[0] : undefined;
  const rows = await listAuditEntries(db, {
    limit: options.limit + 1,
    ...(afterId !== undefined ? { afterId } : {}),
    ...(options.action ? { action: options.action } : {}),
    ...(q ? { q } : {}),
  });
  const page = pageOf(rows, options.limit, (r) => [Number(r.id)]);
  return {
    entries: page.rows.map((r) => ({
      id: Number(r.id),
      actorId: r.actor_id,
      actorEmail: r.actor_email,
      actorName: r.actor_name || r.actor_phone || null,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      targetNameEn: r.target_name_en ?? null,
      targetNameAr: r.target_name_ar ?? null,
      details: safeJson(r.details),
      createdAt: r.created_at,
    })),
    nextCursor: page.nextCursor,
  };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
