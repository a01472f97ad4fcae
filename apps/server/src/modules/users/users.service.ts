import { normalizeDigits, SEARCH_MAX_LENGTH, type UserList, type UserSummary } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, notFound } from "../../errors.ts";
import { findUser, listUsers, type PeopleSearch, type UserRow } from "./users.repository.ts";

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
    internationalPhone: row.phone,
    name: row.name,
    fromLandingPage: row.from_landing_page === 1,
    isAdmin: isAdminMetadata(row.app_metadata),
    blocked: row.banned_until !== null && Date.parse(row.banned_until) > Date.now(),
    lastWatchedStoryId: Number(row.last_watched ?? 0),
    watchedCount: Number(row.watched_count ?? 0),
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

/**
 * A search by name or e-mail, or by phone written any way an operator would: international with or without "+" or
 * "00", with spaces or dashes, Arabic-Indic digits, or the local form of the person's country with its trunk "0"
 * ("0501234567" for "+966501234567"). Phones are stored E.164, so digits are looked for inside them.
 */
export function peopleSearch(q: string): PeopleSearch {
  if (q.length > SEARCH_MAX_LENGTH)
    throw new AppError("search_too_long", `A search may be at most ${SEARCH_MAX_LENGTH} characters`, {
      field: "q",
      max: SEARCH_MAX_LENGTH,
    });
  const compact = normalizeDigits(q); // also drops spaces, dashes, dots, brackets and direction marks
  if (!/^\+?\d{3,}$/.test(compact)) return { text: q, phoneDigits: [] };
  const digits = compact.replace(/^\+/, "").replace(/^00/, "");
  const local = compact.startsWith("0") && !compact.startsWith("00") ? [digits.replace(/^0+/, "")] : [];
  return { text: q, phoneDigits: [...new Set([digits, ...local])].filter((d) => d.length >= 3) };
}

export async function listUserSummaries(
  deps: Pick<AppDeps, "db">,
  options: { limit: number; offset: number; q?: string | undefined; families?: "true" | "false" | undefined },
): Promise<UserList> {
  const { q, families, ...page } = options;
  const { rows, total } = await listUsers(deps.db, {
    ...page,
    familiesOnly: families === "true",
    ...(q ? { search: peopleSearch(q) } : {}),
  });
  return { items: rows.map(toSummary), total };
}

/** Callers have passed requireSelfOrOperator already. */
export async function getUserSummary(deps: Pick<AppDeps, "db">, id: string): Promise<UserSummary> {
  const row = await findUser(deps.db, id);
  if (!row) throw notFound("User not found");
  return toSummary(row);
}
