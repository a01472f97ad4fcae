import type { AdminUserDetail, ContactPage } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { decodeCursor, pageOf, searchText } from "../../db/paging.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { deleteAccountWithFiles } from "../account/deletion.service.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { watchedStoriesOf } from "../progress/progress.service.ts";
import * as repo from "./people.repository.ts";

/** Supabase's ban_duration for "until unblocked": 100 years. */
const BLOCK_DURATION = "876000h";

const operatorRoleOf = (appMetadata: string): "admin" | "facilitator" | null => {
  try {
    const role = (JSON.parse(appMetadata) as { role?: unknown }).role;
    return role === "admin" || role === "facilitator" ? role : null;
  } catch {
    return null;
  }
};

const isBlocked = (bannedUntil: string | null) => bannedUntil !== null && Date.parse(bannedUntil) > Date.now();

/** The recordings module's private audio route (owner or admin, with the access token; Range and ETag). */
export const recordingAudioUrl = (id: string) => `/api/recordings/${id}/audio`;

/** Profile, progress through the program and recordings of one person (the summary comes from GET /api/users/:id). */
export async function getUserDetail(db: DB, userId: string): Promise<AdminUserDetail> {
  const account = await repo.findAccountRow(db, userId);
  if (!account) throw notFound("User not found");
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
    account: {
      blocked: isBlocked(account.banned_until),
      internationalPhone: account.phone,
      operatorRole: operatorRoleOf(account.app_metadata),
    },
  };
}

/**
 * The person an admin acts on from the people pages: a family member. Nobody acts on themselves, and an operator's
 * access is managed on the team page (removing them there first), so blocking or deleting cannot take a console
 * role away behind the team page's back.
 */
async function familyMember(deps: Pick<AppDeps, "db">, actor: Actor, id: string) {
  if (id === actor.id) throw badRequest("You cannot do this to your own account");
  const account = await repo.findAccountRow(deps.db, id);
  if (!account) throw notFound("User not found");
  if (operatorRoleOf(account.app_metadata))
    throw new AppError("operator_account", "This person works in the console: remove them from the team first");
  return account;
}

/**
 * Blocking uses the auth module's ban (Supabase's `banned_until`): every session of the person ends at once (the
 * live-session cache is told through the bus, so on every replica their next request is refused) and signing in
 * again, by password, code or link, is refused until they are unblocked.
 */
export async function setBlocked(deps: AppDeps, actor: Actor, id: string, blocked: boolean, meta: RequestMeta) {
  await familyMember(deps, actor, id);
  await deps.auth.service.adminUpdateUser(id, { ban_duration: blocked ? BLOCK_DURATION : "none" }, meta);
  await audit(deps.db, actor, blocked ? "person.block" : "person.unblock", { type: "user", id });
}

/** The same deletion as the person's own: the account, everything it holds, and its files at once. */
export async function deletePerson(deps: AppDeps, actor: Actor, id: string, meta: RequestMeta) {
  await familyMember(deps, actor, id);
  await deleteAccountWithFiles(deps, id, meta, { kind: "admin", actor });
}

/** The person's own reset flow (code and link to the app's code screen), sent by the message provider. */
export async function sendResetCode(deps: AppDeps, actor: Actor, id: string, meta: RequestMeta & { origin: string }) {
  await familyMember(deps, actor, id);
  await deps.auth.phoneAuth.sendResetCodeTo(id, meta);
  await audit(deps.db, actor, "person.reset_code", { type: "user", id });
}

/** One page of the Contact Us inbox, newest first; `cursor` continues after the previous page, `q` searches it. */
export async function listContacts(
  db: DB,
  options: { status: "open" | "handled" | "all"; limit: number; cursor?: string; q?: string },
): Promise<ContactPage> {
  const q = searchText(options.q);
  const rows = await repo.listContactRows(db, {
    status: options.status,
    limit: options.limit + 1,
    ...(options.cursor ? { after: decodeCursor<[string, string]>(options.cursor, ["string", "string"]) } : {}),
    ...(q ? { q } : {}),
  });
  const page = pageOf(rows, options.limit, (r) => [r.created_at, r.id]);
  return {
    items: page.rows.map((r) => ({
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
    })),
    nextCursor: page.nextCursor,
  };
}

export async function markContact(deps: AppDeps, actor: Actor, id: string, handled: boolean): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if ((await repo.setContactHandled(trx, id, handled ? new Date().toISOString() : null)) !== 1)
      throw notFound("Contact submission not found");
    await audit(trx, actor, handled ? "contact.handled" : "contact.reopened", { type: "contact", id });
  });
}
