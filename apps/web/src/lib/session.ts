/**
 * The spec's local browser storage (section 3): a token and a user id. "Remember Me" keeps them in
 * localStorage across browser restarts; otherwise they live in sessionStorage and end with the browser.
 */
const TOKEN_KEY = "token";
const USER_ID_KEY = "userId";
/** Where supabase-js keeps its session (lib/auth.ts); cleared with the token so a log-out is complete. */
export const AUTH_STORAGE_KEY = "hikaya-auth";

function stores(): Storage[] {
  return [localStorage, sessionStorage];
}

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

export function storeSession(token: string, userId: string, remember = true) {
  clearStoredSession();
  const target = remember ? localStorage : sessionStorage;
  target.setItem(TOKEN_KEY, token);
  target.setItem(USER_ID_KEY, userId);
}

export function clearStoredSession() {
  for (const s of stores()) {
    s.removeItem(TOKEN_KEY);
    s.removeItem(USER_ID_KEY);
    s.removeItem(AUTH_STORAGE_KEY);
    s.removeItem(`${AUTH_STORAGE_KEY}-user`);
  }
}

/** Whether supabase-js has a session stored (it may need refreshing), without loading supabase-js. */
export function hasStoredAuthSession(): boolean {
  return stores().some((s) => s.getItem(AUTH_STORAGE_KEY) !== null);
}
