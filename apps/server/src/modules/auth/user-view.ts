import type { FactorRow, IdentityRow, UserRow } from "./auth.repository.ts";
import { supabasePhone } from "./phone.ts";

/** A user as Supabase Auth shows it (GET /user, sessions, admin API). */
export interface SupabaseUser {
  id: string;
  aud: string;
  role: string;
  email: string;
  email_confirmed_at?: string;
  phone: string;
  phone_confirmed_at?: string;
  confirmed_at?: string;
  last_sign_in_at?: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  identities: SupabaseIdentity[];
  factors: SupabaseFactor[];
  created_at: string;
  updated_at: string;
  is_anonymous: boolean;
  banned_until?: string;
  new_phone?: string;
}

export interface SupabaseIdentity {
  identity_id: string;
  id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
  email?: string;
}

export interface SupabaseFactor {
  id: string;
  friendly_name?: string;
  factor_type: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export const parseJson = (text: string | null): Record<string, unknown> => {
  try {
    const value = text ? JSON.parse(text) : {};
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
};

/**
 * Whether two stored app_metadata documents name different roles. A token carries the role it was issued with, so
 * whoever changes a role must end the person's sessions (their next sign-in carries the new one).
 */
export const roleChanged = (before: string | null, after: string | null): boolean =>
  JSON.stringify(parseJson(before).role ?? null) !== JSON.stringify(parseJson(after).role ?? null);

export const toSupabaseFactor = (f: FactorRow): SupabaseFactor => ({
  id: f.id,
  ...(f.friendly_name ? { friendly_name: f.friendly_name } : {}),
  factor_type: f.factor_type,
  status: f.status,
  created_at: f.created_at,
  updated_at: f.updated_at,
});

export function toSupabaseUser(
  user: UserRow,
  identities: IdentityRow[],
  factors: FactorRow[],
  extra: { newPhone?: string } = {},
): SupabaseUser {
  const confirmedAt = user.email_confirmed_at ?? user.phone_confirmed_at ?? undefined;
  return {
    id: user.id,
    aud: "authenticated",
    role: user.role,
    email: user.email ?? "",
    ...(user.email_confirmed_at ? { email_confirmed_at: user.email_confirmed_at } : {}),
    phone: supabasePhone(user.phone),
    ...(user.phone_confirmed_at ? { phone_confirmed_at: user.phone_confirmed_at } : {}),
    ...(confirmedAt ? { confirmed_at: confirmedAt } : {}),
    ...(user.last_sign_in_at ? { last_sign_in_at: user.last_sign_in_at } : {}),
    app_metadata: parseJson(user.app_metadata),
    user_metadata: parseJson(user.user_metadata),
    identities: identities.map((i) => {
      const data = parseJson(i.identity_data);
      if (typeof data.phone === "string") data.phone = supabasePhone(data.phone);
      return {
        identity_id: i.id,
        id: i.provider_id,
        user_id: i.user_id,
        identity_data: data,
        provider: i.provider,
        last_sign_in_at: i.last_sign_in_at,
        created_at: i.created_at,
        updated_at: i.updated_at,
        ...(i.email ? { email: i.email } : {}),
      };
    }),
    factors: factors.map(toSupabaseFactor),
    created_at: user.created_at,
    updated_at: user.updated_at,
    is_anonymous: user.is_anonymous === 1,
    ...(user.banned_until ? { banned_until: user.banned_until } : {}),
    ...(extra.newPhone ? { new_phone: supabasePhone(extra.newPhone) } : {}),
  };
}
