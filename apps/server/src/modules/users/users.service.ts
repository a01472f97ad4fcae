import type { UserList, UserSummary } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { findUser, listUsers, type UserRow } from "./users.repository.ts";

function isAdminMetadata(raw: string): boolean {
  try {
    return (JSON.parse(raw) as { role?: unknown }).role === "admin";
  } catch {
    return false;
  }
}

function toSummary(row: UserRow): UserSummary {
  return {
    id: row.id,
    email: row.email,
    phoneNumber: row.phone_number ?? row.phone,
    countryCode: row.country_code,
    name: row.name,
    fromLandingPage: row.from_landing_page === 1,
    isAdmin: isAdminMetadata(row.app_metadata),
    lastWatchedStoryId: Number(row.last_watched ?? 0),
    watchedCount: Number(row.watched_count ?? 0),
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

export async function listUserSummaries(
  deps: Pick<AppDeps, "db">,
  options: { limit: number; offset: number; q?: string },
): Promise<UserList> {
  const { rows, total } = await listUsers(deps.db, options);
  return { items: rows.map(toSummary), total };
}

/** Callers have passed requireSelfOrAdmin already. */
export async function getUserSummary(deps: Pick<AppDeps, "db">, id: string): Promise<UserSummary> {
  const row = await findUser(deps.db, id);
  if (!row) throw notFound("User not found");
  return toSummary(row);
}
