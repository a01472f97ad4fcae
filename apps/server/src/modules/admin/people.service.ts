import type { AdminContact, AdminUserDetail } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { watchedStoriesOf } from "../progress/progress.service.ts";
import { type Actor, audit } from "./audit.service.ts";
import * as repo from "./people.repository.ts";

/** The recordings module's private audio route (owner or admin, with the access token; Range and ETag). */
export const recordingAudioUrl = (id: string) => `/api/recordings/${id}/audio`;

/** Profile, progress through the program and recordings of one person (the summary comes from GET /api/users/:id). */
export async function getUserDetail(db: DB, userId: string): Promise<AdminUserDetail> {
  if (!(await repo.userExists(db, userId))) throw notFound("User not found");
  const [profile, watched, recordings] = await Promise.all([
    repo.findProfileRow(db, userId),
    watchedStoriesOf({ db }, userId),
    repo.listRecordingRows(db, userId),
  ]);
  return {
    profile: {
      name: profile?.name ?? null,
      city: profile?.city ?? null,
      gender: profile?.gender ?? null,
      ageGroup: profile?.age_group ?? null,
      countryCode: profile?.country_code ?? null,
      phoneNumber: profile?.phone_number ?? null,
      fromLandingPage: profile?.from_landing_page === 1,
      agreeToReminder: profile ? profile.agree_to_reminder === 1 : false,
      agreeToReminderAt: profile?.agree_to_reminder_at ?? null,
      remindersStoppedVia:
        profile?.agree_to_reminder === 0 ? ((profile.reminders_stopped_via ?? "profile") as "link" | "reply" | "profile") : null,
      whatsappOptIn:
        profile?.whatsapp_opt_in === null || profile?.whatsapp_opt_in === undefined ? null : profile.whatsapp_opt_in === 1,
      whatsappOptInAt: profile?.whatsapp_opt_in_at ?? null,
      language: profile?.language === "en" || profile?.language === "ar" ? profile.language : null,
    },
    progress: watched.map((w) => ({
      storyId: w.storyId,
      order: Number(w.order),
      titleEn: w.title,
      titleAr: w.titleB,
      watchedAt: w.watchedAt,
    })),
    recordings: recordings.map((r) => ({
      id: r.id,
      storyId: r.story_id,
      storyTitleEn: r.title_en ?? null,
      storyTitleAr: r.title_ar ?? null,
      storyOrder: r.position === null || r.position === undefined ? null : Number(r.position),
      questionIndex: r.question_index === null ? null : Number(r.question_index),
      audioUrl: recordingAudioUrl(r.id),
      contentType: r.content_type,
      size: Number(r.size),
      durationSeconds: r.duration_seconds === null ? null : Number(r.duration_seconds),
      createdAt: r.created_at,
    })),
  };
}

export async function listContacts(db: DB, status: "open" | "handled" | "all"): Promise<AdminContact[]> {
  const rows = await repo.listContactRows(db, { status, limit: 500 });
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    name: r.name,
    phone: r.phone,
    city: r.city,
    country: r.country,
    gender: r.gender,
    message: r.message,
    handledAt: r.handled_at,
    createdAt: r.created_at,
  }));
}

export async function markContact(deps: AppDeps, actor: Actor, id: string, handled: boolean): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if ((await repo.setContactHandled(trx, id, handled ? new Date().toISOString() : null)) !== 1)
      throw notFound("Contact submission not found");
    await audit(trx, actor, handled ? "contact.handled" : "contact.reopened", { type: "contact", id });
  });
}
