/** The console's pure logic, kept apart from React so unit tests can reach it. */
import { type AdminAnalytics, type AdminStory, type Language, mediaFor } from "@hikaya/contracts";

/**
 * A story's thumbnail as a family in `language` sees it: the families' own rule (`mediaFor`, which the server's
 * `/api/stories?lang=` applies), so the Arabic console shows the Arabic picture where there is one.
 */
export const thumbnailOf = (story: Pick<AdminStory, "thumbnailUrl" | "thumbnailUrlAr">, language: Language) =>
  mediaFor(language, story.thumbnailUrl, story.thumbnailUrlAr);

/** A copy of `list` with the item at `from` moved to `to`. */
export function move<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}

const csvCell = (value: string | number) => {
  const text = String(value);
  // Quote everything that could break a row, and neutralise spreadsheet formulas.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function analyticsCsv(data: AdminAnalytics): string {
  const rows: (string | number)[][] = [["section", "key", "label", "count"]];
  for (const f of data.funnel) rows.push(["funnel", f.storyOrder ?? f.step, f.step, f.count]);
  for (const d of data.signupsPerDay) rows.push(["signups_per_day", d.day, "", d.count]);
  for (const r of data.recordingsPerStory) rows.push(["recordings_per_story", r.order, r.titleEn, r.count]);
  for (const d of data.messagesPerDay) rows.push(["messages_per_day", d.day, "", d.count]);
  return `${rows.map((r) => r.map(csvCell).join(",")).join("\n")}\n`;
}

/** The field a `validation_failed` answer names first, and zod's reason for it (the server's `details.issues`). */
export function refusedField(details: unknown): { field: string; reason: string } | null {
  const issues = (details as { issues?: { path?: unknown; reason?: unknown }[] } | undefined)?.issues;
  const first = Array.isArray(issues) ? issues[0] : undefined;
  if (!first || typeof first.path !== "string") return null;
  const field = first.path.split("/").filter(Boolean).at(-1);
  return field ? { field, reason: typeof first.reason === "string" ? first.reason : "" } : null;
}
