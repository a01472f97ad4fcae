import type { DB } from "../../db/database.ts";

/**
 * Operators' presence (which replicas hold a console stream of theirs, until when) and when each was last pushed
 * about a conversation. Times are ISO-8601 UTC strings, which compare as they sort.
 */

/** Marks these operators present on `replica` until `until` (a row per operator and replica, made or moved on). */
export async function upsertPresence(db: DB, replica: string, operatorIds: readonly string[], until: string) {
  if (operatorIds.length === 0) return;
  await db
    .insertInto("operator_presence")
    .values(operatorIds.map((operator_id) => ({ operator_id, replica_id: replica, until })))
    .onConflict((oc) => oc.columns(["operator_id", "replica_id"]).doUpdateSet({ until }))
    .execute();
}

/** Forgets an operator's presence on `replica` (every operator's when `operatorId` is left out). */
export async function deletePresence(db: DB, replica: string, operatorId?: string) {
  await db
    .deleteFrom("operator_presence")
    .where("replica_id", "=", replica)
    .$if(operatorId !== undefined, (q) => q.where("operator_id", "=", operatorId as string))
    .execute();
}

/** Drops the rows of every replica that stopped moving them on (one that died), once they expired. */
export async function deleteExpiredPresence(db: DB, now: string) {
  await db.deleteFrom("operator_presence").where("until", "<=", now).execute();
}

/** Which of these operators have a console open on some replica at `now`. */
export async function listPresent(db: DB, operatorIds: readonly string[], now: string): Promise<Set<string>> {
  if (operatorIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("operator_presence")
    .select("operator_id")
    .distinct()
    .where("operator_id", "in", operatorIds as string[])
    .where("until", ">", now)
    .execute();
  return new Set(rows.map((r) => r.operator_id));
}

/**
 * Claims the next push to `operatorId` about a conversation: true when none was sent since `since` (the row is then
 * moved to `now`), false when one was. One conditional upsert, so replicas racing for the same claim get one true.
 */
export async function claimPush(db: DB, operatorId: string, conversationUserId: string, now: string, since: string) {
  const row = await db
    .insertInto("operator_push_sent")
    .values({ operator_id: operatorId, conversation_user_id: conversationUserId, sent_at: now })
    .onConflict((oc) =>
      oc
        .columns(["operator_id", "conversation_user_id"])
        .doUpdateSet({ sent_at: now })
        .where("operator_push_sent.sent_at", "<=", since),
    )
    .returning("operator_id")
    .executeTakeFirst();
  return row !== undefined;
}

/** The operator is back at a console: the next family message in any conversation may push them again. */
export async function forgetPushesTo(db: DB, operatorId: string) {
  await db.deleteFrom("operator_push_sent").where("operator_id", "=", operatorId).execute();
}
