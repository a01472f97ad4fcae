import { AGE_GROUPS, GENDERS, type Profile, type ProfileUpdateFields } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { type Cache, startTableCache } from "../../infrastructure/cache/cache.ts";
import { watchedStoriesOf } from "../progress/progress.service.ts";
import { countryLabel } from "./country-label.ts";
import { findProfileRow, upsertProfileFields } from "./profile.repository.ts";

type Deps = Pick<AppDeps, "db">;

export const PROFILE_CHANGED_CHANNEL = "profile_changed";
// A sixteenth of CACHE_MAX_BYTES (4 MB at the default); the shares are listed in config.ts.
export const PROFILE_SHARE = 0.0625;
/**
 * Every table a profile is read from, by its person column: a committed write to any of them, on any replica,
 * forgets the answers (both shapes) of the people whose rows it wrote, else every answer.
 */
const PROFILE_TABLES = { users: ["id"], profiles: ["user_id"], progress: ["user_id"], stories: [] };
const answers = new WeakMap<object, Cache<Buffer>>();

const answerKey = (userId: string, envelope: boolean) => `${envelope ? "e" : "p"}:${userId}`;

/** Starts the in-memory profile answers for this app (app.ts, at start-up). */
export async function startProfileCache(deps: AppDeps): Promise<() => Promise<void>> {
  const { cache, stop } = await startTableCache<Buffer>(deps, {
    channel: PROFILE_CHANGED_CHANNEL,
    tables: PROFILE_TABLES,
    maxBytes: Math.floor(deps.config.cacheMaxBytes * PROFILE_SHARE),
    sizeOf: (json) => json.byteLength,
    keysOf: (userId) => [answerKey(userId, true), answerKey(userId, false)],
  });
  answers.set(deps.db, cache);
  return async () => {
    answers.delete(deps.db);
    await stop();
  };
}

/**
 * The profile as JSON bytes, bare or in the token API's `{ code, data }` envelope, from memory while none of
 * its tables changed (a profile page and the app's start read it; each read was two queries and a phone parse).
 */
export async function profileJson(deps: Deps, userId: string, envelope: boolean): Promise<Buffer> {
  const build = async () => {
    const profile = await getProfile(deps, userId);
    return Buffer.from(JSON.stringify(envelope ? { code: 200, data: profile } : profile));
  };
  const cache = answers.get(deps.db);
  return cache ? cache.read(answerKey(userId, envelope), build) : build();
}

const oneOf = <T extends string>(list: readonly T[], value: string | null): T | null =>
  value !== null && (list as readonly string[]).includes(value) ? (value as T) : null;

export async function getProfile(deps: Deps, userId: string): Promise<Profile> {
  const [row, watchedStories] = await Promise.all([findProfileRow(deps.db, userId), watchedStoriesOf(deps, userId)]);
  if (!row) throw notFound("User not found");
  const phoneNumber = row.phone_number ?? row.phone;
  return {
    id: row.id,
    name: row.name,
    city: row.city,
    gender: oneOf(GENDERS, row.gender),
    ageGroup: oneOf(AGE_GROUPS, row.age_group),
    country: countryLabel(row.country_code, phoneNumber),
    countryCode: row.country_code,
    phoneNumber,
    email: row.email,
    watchedStories,
    lastWatchedStoryId: watchedStories.reduce((max, s) => Math.max(max, s.order), 0),
  };
}

/** Profile form (spec section 2): empty values are left as they were. */
export async function updateProfile(deps: Deps, userId: string, fields: ProfileUpdateFields): Promise<Profile> {
  const values = {
    ...(fields.name ? { name: fields.name } : {}),
    ...(fields.city ? { city: fields.city } : {}),
    ...(fields.gender ? { gender: fields.gender } : {}),
    ...(fields.ageGroup ? { age_group: fields.ageGroup } : {}),
    ...(fields.timeZone ? { time_zone: fields.timeZone } : {}),
  };
  if (!(await findProfileRow(deps.db, userId))) throw notFound("User not found");
  if (Object.keys(values).length) await upsertProfileFields(deps.db, userId, values);
  return getProfile(deps, userId);
}
