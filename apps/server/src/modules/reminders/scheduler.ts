import { randomUUID } from "node:crypto";
import type { ReminderRunResult } from "@hikaya/contracts";
import { isValidPhoneNumber } from "libphonenumber-js";
import type { AppDeps } from "../../deps.ts";
import { chooseLanguage } from "../auth/texts.ts";
import { watchStatusOf } from "../progress/watch-status.ts";
import * as repo from "./reminders.repository.ts";
import { getSettings } from "./settings.service.ts";
import { createStopToken } from "./stop-links.ts";
import { NAMELESS, renderTemplate } from "./templates.ts";
import { minutesUntilWindow, timeZoneOfPerson } from "./time-window.ts";

type Deps = Pick<AppDeps, "db" | "database" | "messages" | "config" | "auth"> & Partial<Pick<AppDeps, "metrics">>;
type Rules = Awaited<ReturnType<typeof getSettings>>;

/** A provider that fails is tried this many times in all, waiting RETRY_BASE_MS × 4^(try−1) between tries. */
export const MAX_ATTEMPTS = 3;
export const RETRY_BASE_MS = 15 * 60_000;
/** A claim older than this belongs to a replica that died mid-send; the job is looked at again. */
export const STALE_CLAIM_MS = 10 * 60_000;
const ONE_DAY_MS = 24 * 3600_000;
const HOUR_MS = 3600_000;
const BATCH = 50;

export const reminderPurpose = (jobId: string) => `reminder:${jobId}`;
export const publicUrlOf = (config: AppDeps["config"]) => config.publicUrl ?? `http://localhost:${config.port}`;

/**
 * Plans and sends story reminders. `now` is injected so tests move time; each replica has its own
 * worker id, and jobs are claimed in the database so a reminder is sent by one replica only.
 */
export class ReminderScheduler {
  readonly #deps: Deps;
  readonly #now: () => Date;
  readonly #batch: number;
  readonly worker = randomUUID();

  /** `batch`: jobs claimed per round (smaller batches spread a burst over replicas). */
  constructor(deps: Deps, now: () => Date = () => new Date(), options: { batch?: number } = {}) {
    this.#deps = deps;
    this.#now = now;
    this.#batch = options.batch ?? BATCH;
  }

  /**
   * Creates the jobs that became due, then sends every due job this worker can claim. The rules are read again
   * for each person and each job: a run takes minutes with a slow provider, and an operator who turns reminders
   * off or changes them meanwhile must not see the rest of the run go out under the old ones.
   */
  async runDue(): Promise<ReminderRunResult> {
    const result = { sent: 0, skipped: 0, failed: 0 };
    if (!(await getSettings(this.#deps.db)).enabled) return result;
    await this.plan();
    for (;;) {
      const now = this.#now();
      const jobs = await repo.claimDueJobs(this.#deps.db, this.#deps.database.dialect, {
        now: now.toISOString(),
        staleBefore: new Date(now.getTime() - STALE_CLAIM_MS).toISOString(),
        worker: this.worker,
        limit: this.#batch,
      });
      if (jobs.length === 0) break;
      for (const [index, job] of jobs.entries()) {
        const settings = await getSettings(this.#deps.db);
        if (!settings.enabled) {
          await this.#release(jobs.slice(index));
          return result;
        }
        result[await this.#process(job, settings)]++;
      }
      if (jobs.length < this.#batch) break;
    }
    return result;
  }

  /**
   * For each consenting person whose next story is unlocked and unwatched, the next reminder of that
   * story once its time has come: the first `firstAfterHours` after the unlock, each later one
   * `repeatAfterHours` after the one before, at most `maxPerStory`. The idempotency key (person, story,
   * sequence) makes planning safe to run on every replica at once.
   */
  async plan(): Promise<void> {
    const { db } = this.#deps;
    const now = this.#now();
    for (const person of await repo.listConsentingPeople(db, now.toISOString())) {
      const settings = await getSettings(db);
      if (!settings.enabled) return;
      const last = Number(person.lastPosition ?? 0);
      const story = await repo.findStoryByPosition(db, last + 1);
      if (!story) continue; // finished every story
      const previous = await repo.latestJobFor(db, person.userId, story.id);
      const sequence = (previous?.sequence ?? 0) + 1;
      if (sequence > settings.maxPerStory) continue;
      let dueAt: number;
      if (!previous) dueAt = Date.parse(person.lastWatchedAt ?? person.joinedAt) + settings.firstAfterHours * HOUR_MS;
      else if (previous.status === "sent" && previous.sent_at)
        dueAt = Date.parse(previous.sent_at) + settings.repeatAfterHours * HOUR_MS;
      else continue; // the one before is still waiting, failed or was stopped: no second one on top of it
      if (dueAt > now.getTime()) continue;
      const at = new Date(dueAt).toISOString();
      await repo.insertJob(db, {
        id: randomUUID(),
        idempotency_key: `${person.userId}:${story.id}:${sequence}`,
        user_id: person.userId,
        story_id: story.id,
        sequence,
        status: "due",
        attempts: 0,
        due_at: at,
        next_try_at: at,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
    }
  }

  /** Hands claimed jobs back untouched (reminders were turned off mid-run): they wait as they did before the claim. */
  async #release(jobs: repo.ReminderJobRow[]): Promise<void> {
    const at = this.#now().toISOString();
    for (const job of jobs) await repo.finishJob(this.#deps.db, job.id, this.worker, { status: "due", updated_at: at });
  }

  /** When the job is due under `settings` (they may have changed since it was planned); null when it may not go. */
  async #dueUnder(
    settings: Rules,
    job: repo.ReminderJobRow,
    person: { joinedAt: string; lastWatchedAt: string | null },
  ): Promise<number | null> {
    if (job.sequence > settings.maxPerStory) return null;
    if (job.sequence === 1) return Date.parse(person.lastWatchedAt ?? person.joinedAt) + settings.firstAfterHours * HOUR_MS;
    const previous = await repo.sentAtOf(this.#deps.db, job.user_id, job.story_id, job.sequence - 1);
    return previous ? Date.parse(previous) + settings.repeatAfterHours * HOUR_MS : null;
  }

  async #process(job: repo.ReminderJobRow, settings: Rules): Promise<keyof ReminderRunResult> {
    const { db, messages, config, auth } = this.#deps;
    const now = this.#now();
    const at = now.toISOString();
    const finish = (values: Omit<Parameters<typeof repo.finishJob>[3], "updated_at">) =>
      repo.finishJob(db, job.id, this.worker, { ...values, updated_at: at });
    const later = async (waitMs: number) => {
      await finish({ status: "due", next_try_at: new Date(now.getTime() + waitMs).toISOString() });
      return "skipped" as const;
    };

    const person = await repo.findRecipient(db, job.user_id);
    if (!person || person.deleted_at || person.agree_to_reminder !== 1) {
      await finish({ status: "stopped", last_error: "reminders_off" });
      return "skipped";
    }
    if (person.banned_until && Date.parse(person.banned_until) > now.getTime()) {
      await finish({ status: "stopped", last_error: "blocked" });
      return "skipped";
    }
    // Only a story the family can open: a draft's link answers 404.
    const story = await repo.findPublishedStory(db, job.story_id);
    if (!story) {
      await finish({ status: "skipped", last_error: "story_unpublished" });
      return "skipped";
    }
    if (watchStatusOf(story.position, Number(person.lastPosition ?? 0)) !== "Active") {
      await finish({ status: "skipped", last_error: "story_watched" });
      return "skipped";
    }
    const dueAt = await this.#dueUnder(settings, job, person);
    if (dueAt === null) {
      await finish({ status: "stopped", last_error: "rules_changed" });
      return "skipped";
    }
    if (dueAt > now.getTime()) return later(dueAt - now.getTime());
    const phone =
      person.phone ?? (person.country_code && person.phone_number ? `${person.country_code}${person.phone_number}` : null);
    if (!phone || !isValidPhoneNumber(phone)) {
      await finish({ status: "failed", last_error: "invalid_phone" });
      return "failed";
    }
    const channel = person.whatsapp_opt_in === 1 ? "whatsapp" : "sms";

    // A replica that died after the provider took the message but before it wrote "sent" left the
    // outbox row behind: that row, not a second message, settles the job.
    const purpose = reminderPurpose(job.id);
    const delivered = (await messages.list({ limit: 50, recipient: phone })).find(
      (m) => m.purpose === purpose && m.status !== "failed",
    );
    if (delivered) {
      await finish({ status: "sent", channel, sent_at: delivered.createdAt, outbox_id: delivered.id });
      return "skipped";
    }

    const lastSent = await repo.lastSentAt(db, job.user_id);
    if (lastSent && now.getTime() - Date.parse(lastSent) < ONE_DAY_MS)
      return later(Date.parse(lastSent) + ONE_DAY_MS - now.getTime());
    const wait = minutesUntilWindow(now, timeZoneOfPerson(person.time_zone, phone), settings.windowStart, settings.windowEnd);
    if (wait > 0) return later(wait * 60_000);

    const language = chooseLanguage(person.language);
    const base = publicUrlOf(config);
    const token = createStopToken(auth.keys.hmacSecret, { userId: job.user_id, tokenId: job.id, language });
    const body = renderTemplate(settings.templates[language], {
      name: person.name?.trim() || NAMELESS[language],
      story: language === "ar" ? story.title_ar : story.title_en,
      link: `${base}/story/${encodeURIComponent(story.id)}`,
      stopLink: `${base}/api/reminders/stop?token=${token}`,
    });
    const attempts = job.attempts + 1;
    try {
      const sent = await messages.send({ channel, to: phone, body, purpose });
      await finish({ status: "sent", channel, attempts, sent_at: at, outbox_id: sent.id, last_error: null });
      this.#deps.metrics?.count("reminder_sends_total", { channel });
      return "sent";
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (attempts >= MAX_ATTEMPTS) await finish({ status: "failed", channel, attempts, last_error: reason });
      else
        await finish({
          status: "due",
          channel,
          attempts,
          last_error: reason,
          next_try_at: new Date(now.getTime() + RETRY_BASE_MS * 4 ** (attempts - 1)).toISOString(),
        });
      return "failed";
    }
  }
}
