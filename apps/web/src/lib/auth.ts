/**
 * Signing in, up and out in the user app. Both sign-in paths end in the same session (lib/session.ts):
 * the username/e-mail path through /auth/v1, and the phone-number API (/api/sign-up), which answers the
 * same session's access and refresh tokens. lib/session.ts keeps it fresh and mirrors the spec's
 * `token` and `userId` keys, so the token API and the rest of the app only read those.
 */
import { useEffect, useSyncExternalStore } from "react";
import { AuthApiError } from "./auth-session.ts";
import { looksLikePhone, toE164, usernameToEmail } from "./countries.ts";
import { loadSettings } from "./public-settings.ts";
import { clearStoredSession, getAccessToken, getUserId, startAuthSync, userSession } from "./session.ts";
import { type StoreUser, useAppStore } from "./store.ts";
import { reportTimeZone } from "./time-zone.ts";

export { loadSettings, startAuthSync };

const REMEMBER_KEY = "rememberMe";

/** The last Remember Me choice, to pre-tick the box. */
function rememberPreference(): boolean {
  return localStorage.getItem(REMEMBER_KEY) !== "0";
}

const ticked = () => true;
const unchanging = () => () => undefined;

/**
 * The last Remember Me choice as a component reads it: ticked in the prerendered page (which knows no device) and
 * while it hydrates, then this device's choice, so the two renders agree and React updates the box afterwards.
 */
export function useRememberPreference(): boolean {
  return useSyncExternalStore(unchanging, rememberPreference, ticked);
}

function setRememberPreference(remember: boolean) {
  localStorage.setItem(REMEMBER_KEY, remember ? "1" : "0");
}

export type LoginIdentifier = { email: string } | { phone: string };

/**
 * What the login field holds: a username (→ `<username>@<domain>`), an e-mail address, or a phone
 * number read with the selected country's dial code. Null when it looks like a phone number that
 * cannot be read.
 */
export function loginIdentifier(input: string, dialCode: string | undefined, emailDomain: string): LoginIdentifier | null {
  const value = input.trim();
  if (looksLikePhone(value)) {
    const phone = toE164(value, dialCode ? { dialCode } : undefined);
    return phone ? { phone } : null;
  }
  return { email: usernameToEmail(value, emailDomain) };
}

/** Throws AuthApiError (errorText() translates it by code). */
export async function signInWithPassword(identifier: LoginIdentifier, password: string, remember: boolean) {
  setRememberPreference(remember);
  const session = await userSession.signInWithPassword(identifier, password, remember);
  startAuthSync();
  void reportTimeZone();
  return session;
}

/** English sign-up: the username becomes the e-mail identity; returns the new user's id. */
export async function signUpWithUsername(username: string, password: string): Promise<{ userId: string; email: string }> {
  setRememberPreference(true);
  const settings = await loadSettings();
  const email = usernameToEmail(username, settings.usernameEmailDomain);
  const session = await userSession.signUp(email, password, { username: username.trim() }, true);
  startAuthSync();
  void reportTimeZone();
  return { userId: session.user.id, email };
}

/**
 * A session from the phone-number API (/api/sign-up): the same session as any other once its refresh
 * token is kept, so it is refreshed like any other.
 */
export function storeTokenSession(
  token: string,
  userId: string,
  options: { refreshToken: string; expiresAt?: number; remember?: boolean },
) {
  const remember = options.remember ?? true;
  setRememberPreference(remember);
  userSession.save(
    {
      access_token: token,
      refresh_token: options.refreshToken,
      // Unknown expiry: treat the token as expiring now, so the first request refreshes it.
      expires_at: options.expiresAt ?? Math.floor(Date.now() / 1000),
      user: { id: userId },
    },
    remember,
  );
  startAuthSync();
  // Phone sign-up and every phone sign-in (code or password) end here.
  void reportTimeZone();
}

/** Log out: end the session on the server (401/403/404 ignored), then forget it here. */
export async function signOut() {
  await userSession.signOut();
  clearStoredSession();
}

/** A 4xx from the auth server means the session is no good; anything else (offline, 5xx) is not a verdict. */
function isRejected(error: unknown): boolean {
  return error instanceof AuthApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
}

export interface CurrentSession {
  token: string;
  userId: string;
}

/**
 * The current person or null. The session is refreshed first when its token has expired; with `verify`
 * the server is asked (GET /auth/v1/user). A network failure trusts the stored session rather than
 * logging someone out for being offline.
 */
export async function requireSession({ verify = false } = {}): Promise<CurrentSession | null> {
  if (userSession.get()) {
    startAuthSync();
    const session = await userSession.fresh();
    if (session && verify) {
      try {
        await userSession.getUser();
      } catch (error) {
        if (isRejected(error)) {
          clearStoredSession();
          return null;
        }
      }
    }
    if (!session) {
      useAppStore.getState().setUser(null);
      return null;
    }
    useAppStore.getState().setUser({ id: session.user.id, email: session.user.email ?? null, phone: session.user.phone ?? null });
    return { token: session.access_token, userId: session.user.id };
  }
  const token = getAccessToken();
  const userId = getUserId();
  if (!token || !userId) {
    useAppStore.getState().setUser(null);
    return null;
  }
  useAppStore.getState().setUser({ id: userId });
  return { token, userId };
}

/**
 * The signed-in person for components: `checked` turns true once the stored session has been read.
 */
export function useCurrentUser(): { user: StoreUser | null; checked: boolean } {
  const user = useAppStore((s) => s.user);
  const checked = useAppStore((s) => s.userChecked);
  useEffect(() => {
    if (checked) return;
    if (!getAccessToken()) useAppStore.getState().setUser(null);
    else void requireSession();
  }, [checked]);
  return { user, checked };
}
