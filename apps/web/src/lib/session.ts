/**
 * The user app's session (lib/auth-session.ts under the key "hikaya-auth") and the spec's local
 * browser storage (section 3): a `token` and a `userId`, kept in sync with every sign-in, refresh and
 * sign-out, in the same storage as the session (localStorage with Remember Me, else sessionStorage).
 * The console keeps its own session under another key (admin/admin-session.ts).
 */
import { AuthSession, type SessionEvent, type StoredSession } from "./auth-session.ts";
import { loadSettings } from "./public-settings.ts";
import { useAppStore } from "./store.ts";

const TOKEN_KEY = "token";
const USER_ID_KEY = "userId";
export const AUTH_STORAGE_KEY = "hikaya-auth";

function stores(): Storage[] {
  return [localStorage, sessionStorage];
}

function mirror(_event: SessionEvent, session: StoredSession | null) {
  const user = session?.user;
  useAppStore.getState().setUser(user ? { id: user.id, email: user.email ?? null, phone: user.phone ?? null } : null);
  for (const s of stores()) {
    s.removeItem(TOKEN_KEY);
    s.removeItem(USER_ID_KEY);
  }
  if (!session) return;
  const target = localStorage.getItem(AUTH_STORAGE_KEY) !== null ? localStorage : sessionStorage;
  target.setItem(TOKEN_KEY, session.access_token);
  target.setItem(USER_ID_KEY, session.user.id);
}

export const userSession = new AuthSession({
  storageKey: AUTH_STORAGE_KEY,
  apiKey: async () => (await loadSettings()).anonKey,
  onChange: mirror,
});

export function getAccessToken(): string | null {
  for (const s of stores()) {
    const v = s.getItem(TOKEN_KEY);
    if (v) return v;
  }
  return null;
}

export function getUserId(): string | null {
  for (const s of stores()) {
    const v = s.getItem(USER_ID_KEY);
    if (v) return v;
  }
  return null;
}

/** A token for the next request: refreshed first when it has expired or is about to. */
export async function getFreshAccessToken(): Promise<string | null> {
  if (!userSession.get()) return getAccessToken();
  return (await userSession.fresh())?.access_token ?? null;
}

/** Keeps the signed-in person's session fresh in this tab (the 30 s tick and other tabs' refreshes). */
export function startAuthSync() {
  userSession.start();
}

/** Forgets everything this device knows about the signed-in person. */
export function clearStoredSession() {
  userSession.clear();
  mirror("SIGNED_OUT", null);
}

/** Whether a refreshable session is stored. */
export function hasStoredAuthSession(): boolean {
  return userSession.get() !== null;
}
