import { randomUUID } from "node:crypto";
import type { SavedReply, SavedReplyInput } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import type { SavedRepliesTable } from "../../db/schema.ts";
import { notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import * as repo from "./saved-replies.repository.ts";

const toReply = (row: SavedRepliesTable): SavedReply => ({
  id: row.id,
  title: row.title,
  textEn: row.text_en,
  textAr: row.text_ar,
  updatedAt: row.updated_at,
});

/** Every operator reads the library (the composer's `/` list); only admins write it (access.ts). Writes are audited. */
export async function listSavedReplies(db: DB): Promise<SavedReply[]> {
  return (await repo.listReplies(db)).map(toReply);
}

export async function createSavedReply(db: DB, actor: Actor, input: SavedReplyInput): Promise<SavedReply> {
  const now = new Date().toISOString();
  const row: SavedRepliesTable = {
    id: randomUUID(),
    title: input.title,
    text_en: input.textEn,
    text_ar: input.textAr,
    created_at: now,
    updated_at: now,
  };
  await db.transaction().execute(async (trx) => {
    await repo.insertReply(trx, row);
    await audit(trx, actor, "reply.create", { type: "saved_reply", id: row.id }, { titleEn: row.title });
  });
  return toReply(row);
}

export async function updateSavedReply(db: DB, actor: Actor, id: string, input: SavedReplyInput): Promise<SavedReply> {
  return db.transaction().execute(async (trx) => {
    const before = await repo.findReply(trx, id);
    if (!before) throw notFound("No such saved reply");
    const values = { title: input.title, text_en: input.textEn, text_ar: input.textAr, updated_at: new Date().toISOString() };
    if (!(await repo.updateReply(trx, id, values))) throw notFound("No such saved reply");
    await audit(trx, actor, "reply.update", { type: "saved_reply", id }, { titleEn: input.title });
    return toReply({ ...before, ...values });
  });
}

export async function deleteSavedReply(db: DB, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const before = await repo.findReply(trx, id);
    if (!before || !(await repo.deleteReply(trx, id))) throw notFound("No such saved reply");
    await audit(trx, actor, "reply.delete", { type: "saved_reply", id }, { titleEn: before.title });
  });
}
