import type { AuditEntry } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
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

export async function listAudit(db: DB, options: { limit: number; before?: number; action?: string }): Promise<AuditEntry[]> {
  const rows = await listAuditEntries(db, options);
  return rows.map((r) => ({
    id: Number(r.id),
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    details: safeJson(r.details),
    createdAt: r.created_at,
  }));
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
