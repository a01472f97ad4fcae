import type { RunningApp } from "./lib.ts";

/** The storage keys of the user app's session (apps/web/src/lib/session.ts). */
const AUTH_STORAGE_KEY = "hikaya-auth";

/**
 * A family member signed up through /auth/v1/signup, as the register screen does; the page scripts
 * below put the session where the app keeps it with Remember Me, so `/` opens the signed-in home.
 */
export async function familySession(running: RunningApp): Promise<Record<string, string>> {
  const res = await fetch(`${running.url}/auth/v1/signup`, {
    method: "POST",
    headers: {
      apikey: running.app.deps.auth.keys.anonKey,
      "content-type": "application/json",
      "x-supabase-api-version": "2024-01-01",
    },
    body: JSON.stringify({ email: `bench-web-${Date.now()}@users.hikaya.app`, password: "bench-password-1" }),
  });
  if (!res.ok) throw new Error(`signup ${res.status}`);
  const session = (await res.json()) as { access_token: string; user: { id: string } };
  return {
    [AUTH_STORAGE_KEY]: JSON.stringify(session),
    token: session.access_token,
    userId: session.user.id,
    i18nextLng: "ar",
  };
}
