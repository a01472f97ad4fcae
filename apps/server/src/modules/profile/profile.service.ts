import { AGE_GROUPS, GENDERS, type Profile, type ProfileUpdateFields } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { watchedStoriesOf } from "../progress/progress.service.ts";
import { countryLabel } from "./country-label.ts";
import { findProfileRow, upsertProfileFields } from "./profile.repository.ts";

type Deps = Pick<AppDeps, "db">;

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
  };
  if (!(await findProfileRow(deps.db, userId))) throw notFound("User not found");
  if (Object.keys(values).length) await upsertProfileFields(deps.db, userId, values);
  return getProfile(deps, userId);
}
