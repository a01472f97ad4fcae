import type { AdminAnalytics } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { badRequest } from "../../errors.ts";
import * as repo from "./analytics.repository.ts";

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

/** Days `from`…`to` inclusive (YYYY-MM-DD); by default the last 30 days up to today (UTC). */
export function resolveRange(from?: string, to?: string, now = new Date()) {
  const end = to ?? now.toISOString().slice(0, 10);
  const start = from ?? new Date(Date.parse(`${end}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const startMs = Date.parse(`${start}T00:00:00Z`);
  const endMs = Date.parse(`${end}T00:00:00Z`);
  if (endMs < startMs) throw badRequest("from must not be after to");
  if ((endMs - startMs) / DAY_MS >= MAX_DAYS) throw badRequest(`A range covers at most ${MAX_DAYS} days`);
  const days: string[] = [];
  for (let t = startMs; t <= endMs; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return { start, end, days, range: { from: `${start}T00:00:00.000Z`, to: new Date(endMs + DAY_MS).toISOString() } };
}

const fill = (days: string[], rows: { day: string; n: number }[]) => {
  const counts = new Map(rows.map((r) => [r.day, Number(r.n)]));
  return days.map((d) => ({ day: d, count: counts.get(d) ?? 0 }));
};

/**
 * The spec's analytics events as the console's pictures: the funnel from landing video end to sign-up
 * to each story watched, sign-ups and messages per day, recordings per story. Story figures cover the published
 * stories only, as families see them; a draft's preview activity is not theirs.
 */
export async function getAnalytics(db: DB, from?: string, to?: string): Promise<AdminAnalytics> {
  const { start, end, days, range } = resolveRange(from, to);
  const [landingEnds, signups, watchers, stories, recordings, messages, waits, waiting] = await Promise.all([
    repo.countEvents(db, "landing_video_end", range),
    repo.signupsPerDay(db, range),
    repo.watchersPerStory(db, range),
    repo.publishedStories(db),
    repo.recordingsPerStory(db, range),
    repo.messagesPerDay(db, range),
    repo.waitsStarted(db, range),
    repo.longestWaiting(db, LONGEST_WAITING),
  ]);
  const signupTotal = signups.reduce((sum, r) => sum + Number(r.n), 0);
  const watchedBy = new Map(watchers.map((w) => [w.id, Number(w.n)]));
  const recordedFor = new Map(recordings.map((r) => [r.story_id, Number(r.n)]));
  return {
    from: start,
    to: end,
    funnel: [
      { step: "landing_video_end", storyOrder: null, count: landingEnds },
      { step: "signup", storyOrder: null, count: signupTotal },
      ...stories.map((s) => ({ step: "story_watched", storyOrder: Number(s.position), count: watchedBy.get(s.id) ?? 0 })),
    ],
    signupsPerDay: fill(
      days,
      signups.map((r) => ({ day: String(r.day), n: Number(r.n) })),
    ),
    recordingsPerStory: stories.map((s) => ({
      storyId: s.id,
      order: Number(s.position),
      titleEn: s.title_en,
      titleAr: s.title_ar,
      count: recordedFor.get(s.id) ?? 0,
    })),
    messagesPerDay: fill(
      days,
      messages.map((r) => ({ day: String(r.day), n: Number(r.n) })),
    ),
    messagesAvailable: true,
    recordingsAvailable: true,
    firstResponse: {
      weeks: responseWeeks(start, end, waits),
      longestWaiting: waiting.map((w) => ({
        userId: w.user_id,
        name: w.name || w.phone || null,
        waitingSince: String(w.waiting_since),
      })),
    },
  };
}

const LONGEST_WAITING = 10;

/** The Monday (UTC) of the week holding `iso`, as YYYY-MM-DD. */
export function weekOf(iso: string): string {
  const dayStart = Date.parse(`${iso.slice(0, 10)}T00:00:00Z`);
  const sinceMonday = (new Date(dayStart).getUTCDay() + 6) % 7;
  return new Date(dayStart - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** The nearest-rank percentile of sorted values: the smallest value with at least `p` of them at or below it. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? null;
}

/** Every week of the range, each with its waits' answer times (in seconds) summed up. */
function responseWeeks(start: string, end: string, waits: { asked_at: string; answered_at: string | null }[]) {
  const byWeek = new Map<string, { answered: number[]; unanswered: number }>();
  for (
    let week = weekOf(start);
    week <= end;
    week = new Date(Date.parse(`${week}T00:00:00Z`) + 7 * DAY_MS).toISOString().slice(0, 10)
  )
    byWeek.set(week, { answered: [], unanswered: 0 });
  for (const wait of waits) {
    const entry = byWeek.get(weekOf(String(wait.asked_at)));
    if (!entry) continue;
    if (wait.answered_at === null) entry.unanswered++;
    else entry.answered.push((Date.parse(String(wait.answered_at)) - Date.parse(String(wait.asked_at))) / 1000);
  }
  return [...byWeek].map(([weekStart, { answered, unanswered }]) => {
    const sorted = answered.sort((a, b) => a - b);
    return {
      weekStart,
      answered: sorted.length,
      unanswered,
      medianSeconds: percentile(sorted, 0.5),
      p90Seconds: percentile(sorted, 0.9),
    };
  });
}
