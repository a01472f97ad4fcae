/**
 * Auth in the browser: the official @supabase/supabase-js client pointed at Hikaya's own /auth/v1
 * (same origin, the anon key from /api/settings), plus the phone-number API's tokens. supabase-js is
 * imported on first use, so a first visit to /login does not download it before someone signs in.
 *
 * The spec's local storage (lib/session.ts: token + user id) follows every auth event, so the token
 * API and the rest of the app never need supabase-js. "Remember Me" decides where both live:
 * localStorage survives a browser restart, sessionStorage ends with the browser.
 */
import type { PublicSettings } from "@hikaya/contracts";
import type { Session, SupabaseClient } from "@supabase/supabase-js";
import { useEffect } from "react";
import { api } from "./api-client.ts";
import { looksLikePhone, toE164, usernameToEmail } from "./countries.ts";
import { AUTH_STORAGE_KEY, clearStoredSession, getAccessToken, getUserId, storeSession } from "./session.ts";
import { type StoreUser, useAppStore } from "./store.ts";

const REMEMBER_KEY = "rememberMe";

export function rememberPreference(): boolean {
  return localStorage.getItem(REMEMBER_KEY) !== "0";
}

function setRememberPreference(remember: boolean) {
  localStorage.setItem(REMEMBER_KEY, remember ? "1" : "0");
}

/** supabase-js storage that writes where Remember Me says and reads from either place. */
const rememberingStorage = {
  getItem: (key: string) => localStorage.getItem(key) ?? sessionStorage.getItem(key),
  setItem: (key: string, value: string) => {
    const [target, other] = rememberPreference() ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
    other.removeItem(key);
    target.setItem(key, value);
  },
  removeItem: (key: string) => {
    localStorage.removeItem(key);
    sessionStorage.removeItem(key);
  },
};

let settingsPromise: Promise<PublicSettings> | undefined;
export function loadSettings(): Promise<PublicSettings> {
  settingsPromise ??= api<PublicSettings>("/settings");
  settingsPromise.catch(() => {
    settingsPromise = undefined;
  });
  return settingsPromise;
}

function toStoreUser(session: Session): StoreUser {
  return { id: session.user.id, email: session.user.email ?? null, phone: session.user.phone ?? null, via: "auth" };
}

let clientPromise: Promise<SupabaseClient> | undefined;

/** The one supabase-js client, created on first use. */
export function getAuthClient(): Promise<SupabaseClient> {
  clientPromise ??= (async () => {
    const [{ createClient }, settings] = await Promise.all([import("@supabase/supabase-js"), loadSettings()]);
    const client = createClient(window.location.origin, settings.anonKey, {
      auth: {
        storage: rememberingStorage,
        storageKey: AUTH_STORAGE_KEY,
        persistSession: true,
        autoRefreshToken: true,
        detectSessionInUrl: false,
      },
    });
    client.auth.onAuthStateChange((event, session) => {
      if (session) {
        storeSession(session.access_token, session.user.id, rememberPreference());
        useAppStore.getState().setUser(toStoreUser(session));
      } else if (event === "SIGNED_OUT") {
        clearStoredSession();
        useAppStore.getState().setUser(null);
      }
    });
    return client;
  })();
  clientPromise.catch(() => {
    clientPromise = undefined;
  });
  return clientPromise;
}

/** Starts supabase-js for someone who already has a session, so it keeps refreshing the access token. */
export function startAuthSync() {
  void getAuthClient().catch(() => undefined);
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

/** Throws supabase-js's AuthError (errorText() translates it by code). */
export async function signInWithPassword(identifier: LoginIdentifier, password: string, remember: boolean) {
  setRememberPreference(remember);
  const client = await getAuthClient();
  const { data, error } = await client.auth.signInWithPassword({ ...identifier, password });
  if (error) throw error;
  return data;
}

/** English sign-up: the username becomes the e-mail identity; returns the new user's id. */
export async function signUpWithUsername(username: string, password: string): Promise<{ userId: string; email: string }> {
  setRememberPreference(true);
  const [client, settings] = await Promise.all([getAuthClient(), loadSettings()]);
  const email = usernameToEmail(username, settings.usernameEmailDomain);
  const { data, error } = await client.auth.signUp({ email, password, options: { data: { username: username.trim() } } });
  if (error) throw error;
  const userId = data.user?.id ?? data.session?.user.id;
  if (!userId) throw new Error("sign-up returned no user");
  return { userId, email };
}

/**
 * A session from the phone-number API (/api/sign-up): kept like any other. With a refresh token it is
 * handed to supabase-js too, which then keeps it fresh; the stored token works either way.
 */
export function storeTokenSession(token: string, userId: string, options: { refreshToken?: string; remember?: boolean } = {}) {
  const remember = options.remember ?? true;
  setRememberPreference(remember);
  storeSession(token, userId, remember);
  useAppStore.getState().setUser({ id: userId, via: "token" });
  const refreshToken = options.refreshToken;
  if (refreshToken)
    void getAuthClient()
      .then((client) => client.auth.setSession({ access_token: token, refresh_token: refreshToken }))
      .catch(() => undefined);
}

/** Log out: end the session on the server (401/403/404 are ignored by supabase-js), forget it here. */
export async function signOut() {
  const token = getAccessToken();
  try {
    const client = await getAuthClient();
    const { data } = await client.auth.getSession();
    if (data.session) await client.auth.signOut({ scope: "local" });
    else if (token) await fetch("/auth/v1/logout?scope=local", { method: "POST", headers: { authorization: `Bearer ${token}` } });
  } catch {
    // Offline: the local session is gone below, which is what the person asked for.
  } finally {
    clearStoredSession();
    useAppStore.getState().setUser(null);
  }
}

/** A 4xx from the auth server means the session is no good; anything else (offline, 5xx) is not a verdict. */
function isRejected(error: { status?: number } | null): boolean {
  return Boolean(error?.status && error.status >= 400 && error.status < 500);
}

export interface CurrentSession {
  token: string;
  userId: string;
}

/**
 * The current person or null, checked with the server (GET /auth/v1/user) when `verify` is set. A
 * supabase-js session is refreshed if needed; a phone-API token is checked as it is. A network failure
 * trusts the stored session rather than logging someone out for being offline.
 */
export async function requireSession({ verify = false } = {}): Promise<CurrentSession | null> {
  let client: SupabaseClient | undefined;
  try {
    client = await getAuthClient();
    const { data } = await client.auth.getSession();
    if (data.session) {
      if (verify) {
        const { error } = await client.auth.getUser();
        if (isRejected(error)) {
          await signOut();
          return null;
        }
      }
      return { token: data.session.access_token, userId: data.session.user.id };
    }
  } catch {
    // Settings or supabase-js unavailable: fall back to the stored token.
  }
  const token = getAccessToken();
  const userId = getUserId();
  if (!token || !userId) {
    useAppStore.getState().setUser(null);
    return null;
  }
  if (verify && client) {
    const { error } = await client.auth.getUser(token);
    if (isRejected(error)) {
      clearStoredSession();
      useAppStore.getState().setUser(null);
      return null;
    }
  }
  useAppStore.getState().setUser({ id: userId, via: "token" });
  return { token, userId };
}

/**
 * The signed-in person for components: `checked` turns true once the stored session has been read.
 * Without a stored token the answer is immediate and supabase-js is not loaded.
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
