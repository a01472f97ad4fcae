import { REMINDER_JOB_STATUSES, type ReminderJobStatus, type ReminderQueuePage } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { AppError } from "../../errors.ts";
import * as repo from "./reminders.repository.ts";

const DEFAULT_PAGE = 25;

/** Cursor: the last row's creation time and id, so pages stay stable while new jobs arrive. */
const encodeCursor = (createdAt: string, id: string) => Buffer.from(JSON.stringify([createdAt, id])).toString("base64url");

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // falls through to the error below
  }
  throw new AppError("validation_failed", "before is not a cursor from this list", { field: "before", reason: "invalid" });
}

export async function listQueue(
  db: DB,
  options: { status?: ReminderJobStatus; before?: string; limit?: number },
): Promise<ReminderQueuePage> {
  const limit = options.limit ?? DEFAULT_PAGE;
  const rows = await repo.listJobs(db, {
    ...(options.status ? { status: options.status } : {}),
    ...(options.before ? { before: decodeCursor(options.before) } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const counts = Object.fromEntries(REMINDER_JOB_STATUSES.map((s) => [s, 0])) as Record<ReminderJobStatus, number>;
  for (const { status, count } of await repo.countJobsByStatus(db))
    if (status in counts) counts[status as ReminderJobStatus] = count;
  return {
    jobs: page.map((r) => ({
      id: r.id,
      userId: r.user_id,
      name: r.name ?? null,
      storyId: r.story_id,
      storyTitle: r.storyTitle ?? null,
      sequence: r.sequence,
      status: r.status as ReminderJobStatus,
      channel: r.channel,
      attempts: r.attempts,
      dueAt: r.due_at,
      nextTryAt: r.next_try_at,
      sentAt: r.sent_at,
      lastError: r.last_error,
      createdAt: r.created_at,
    })),
    nextBefore: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    counts,
  };
}
