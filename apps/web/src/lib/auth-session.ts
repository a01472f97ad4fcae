/**
 * A signed-in session against Hikaya's /auth/v1 (Supabase-Auth compatible), kept fresh in the
 * background. Hand-written rather than supabase-js: the browser needs five calls, and supabase-js
 * would add ~57 KB gzipped to every signed-in page.
 *
 * Where it lives: one storage key per app (the user app and the console each have their own, so they
 * never clobber each other). "Remember Me" puts it in localStorage (survives browser restarts until
 * log-out or the refresh token's end); otherwise sessionStorage (ends with the browser).
 *
 * Refresh (spec sections 8 and 9): a tick every 30 s refreshes when 3 ticks or fewer remain before the
 * access token expires; a request made with an expired token refreshes first. Retryable failures
 * (offline, 5xx, 429) are retried with backoff from 200 ms doubling; any other refusal ends the session.
 * Tabs share one session: only one tab refreshes at a time (Web Locks), and the others pick up the
 * rotated tokens from the `storage` event, so a refresh token is never spent twice.
 */
import { AUTH_REFRESH_THRESHOLD_TICKS, AUTH_REFRESH_TICK_MS, AUTH_RETRY_BASE_MS } from "@hikaya/contracts";
import { backoffDelay, sleep } from "./backoff.ts";

export interface SessionUser {
  id: string;
  email?: string | null;
  phone?: string | null;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
}

export interface StoredSession {
  access_token: string;
  refresh_token: string;
  /** Unix seconds. */
  expires_at: number;
  user: SessionUser;
}

export type SessionEvent = "SIGNED_IN" | "TOKEN_REFRESHED" | "SIGNED_OUT";
type Listener = (event: SessionEvent, session: StoredSession | null) => void;

/** An answer from /auth/v1 that is not a success; shaped like supabase-js's AuthError so lib/errors.ts reads both. */
export class AuthApiError extends Error {
  readonly __isAuthError = true;
  readonly status: number;
  readonly code: string | undefined;
  /** A refusal's wait (the `Retry-After` of a rate limit or an account's lock), when the server named one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, status: number, code?: string, name = "AuthApiError", retryAfterSeconds?: number) {
    super(message);
    this.name = name;
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Offline, a server error, or too many requests: worth trying again later. */
  get retryable(): boolean {
    return this.status === 0 || this.status >= 500 || this.status === 429;
  }
}

export interface AuthSessionOptions {
  /** Where the session is kept, e.g. "hikaya-auth" (user app) or "hikaya-console-auth" (console). */
  storageKey: string;
  /** The anon key sent as `apikey` with every /auth/v1 call. */
  apiKey(): Promise<string>;
  /** Called after every change, e.g. to mirror the spec's `token` / `userId` keys. */
  onChange?: Listener;
  now?: () => number;
  fetch?: typeof fetch;
}

const REFRESH_MARGIN_MS = AUTH_REFRESH_TICK_MS * AUTH_REFRESH_THRESHOLD_TICKS;
/** A request made within this much of expiry refreshes first rather than sending a token about to die. */
const REQUEST_MARGIN_MS = 5_000;

export class AuthSession {
  readonly #options: AuthSessionOptions;
  readonly #listeners = new Set<Listener>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #refreshing: Promise<StoredSession | null> | null = null;
  #onStorage = (event: StorageEvent) => {
    if (event.key !== this.#options.storageKey) return;
    const session = this.get();
    this.#emit(session ? "TOKEN_REFRESHED" : "SIGNED_OUT", session);
  };

  constructor(options: AuthSessionOptions) {
    this.#options = options;
  }

  get storageKey(): string {
    return this.#options.storageKey;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  /** The stored session, whichever storage holds it. */
  get(): StoredSession | null {
    const raw = localStorage.getItem(this.storageKey) ?? sessionStorage.getItem(this.storageKey);
    if (!raw) return null;
    try {
      const value = JSON.parse(raw) as StoredSession;
      return value?.access_token && value.refresh_token && value.user?.id ? value : null;
    } catch {
      return null;
    }
  }

  /** Whether the session lives in localStorage (Remember Me). */
  remembered(): boolean {
    return localStorage.getItem(this.storageKey) !== null;
  }

  accessToken(): string | null {
    return this.get()?.access_token ?? null;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Keeps a new session (after sign-in or sign-up) where Remember Me says. */
  save(session: StoredSession, remember: boolean, event: SessionEvent = "SIGNED_IN") {
    const [target, other] = remember ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
    other.removeItem(this.storageKey);
    target.setItem(this.storageKey, JSON.stringify(session));
    this.#emit(event, session);
  }

  /** Forgets the session on this device (every tab of this app sees it through the storage event). */
  clear() {
    const had = this.get() !== null;
    localStorage.removeItem(this.storageKey);
    sessionStorage.removeItem(this.storageKey);
    if (had) this.#emit("SIGNED_OUT", null);
  }

  /** Starts the 30 s refresh tick and listens to other tabs. Safe to call more than once. */
  start() {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.#tick(), AUTH_REFRESH_TICK_MS);
    window.addEventListener("storage", this.#onStorage);
    void this.#tick();
  }

  stop() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    window.removeEventListener("storage", this.#onStorage);
  }

  async #tick() {
    const session = this.get();
    if (session && this.#expiresInMs(session) <= REFRESH_MARGIN_MS) await this.refresh().catch(() => undefined);
  }

  #expiresInMs(session: StoredSession): number {
    return session.expires_at * 1000 - this.#now();
  }

  /**
   * A session whose access token is good for the next request: refreshed first when it has expired or
   * is about to. Null when signed out (or the refresh was refused).
   */
  async fresh(): Promise<StoredSession | null> {
    const session = this.get();
    if (!session) return null;
    if (this.#expiresInMs(session) > REQUEST_MARGIN_MS) return session;
    return this.refresh().catch(() => this.get());
  }

  /** Rotates the tokens now. Concurrent callers in this tab share one refresh; tabs take turns by lock. */
  refresh(): Promise<StoredSession | null> {
    this.#refreshing ??= this.#refreshLocked().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refreshLocked(): Promise<StoredSession | null> {
    const before = this.get();
    if (!before) return null;
    const run = () => this.#refreshOnce(before.refresh_token);
    const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
    return locks ? locks.request(`${this.storageKey}:refresh`, run) : run();
  }

  async #refreshOnce(spent: string): Promise<StoredSession | null> {
    for (let attempt = 0; ; attempt++) {
      const current = this.get();
      if (!current) return null;
      // Another tab refreshed while we waited for the lock: its tokens are ours too.
      if (current.refresh_token !== spent) return current;
      try {
        const next = await this.#call<StoredSession>("/token?grant_type=refresh_token", {
          body: { refresh_token: current.refresh_token },
        });
        this.save(toStoredSession(next), this.remembered(), "TOKEN_REFRESHED");
        return this.get();
      } catch (error) {
        const retryable = !(error instanceof AuthApiError) || error.retryable;
        if (!retryable) {
          this.clear();
          throw error;
        }
        const delay = backoffDelay(attempt, AUTH_RETRY_BASE_MS);
        // Keep trying while the next try still lands within one tick; the tick after that tries again.
        if (delay >= AUTH_REFRESH_TICK_MS) throw error;
        await sleep(delay);
      }
    }
  }

  /** Signs in with a password (an e-mail or a phone number). */
  async signInWithPassword(identifier: { email: string } | { phone: string }, password: string, remember: boolean) {
    const session = await this.#call<StoredSession>("/token?grant_type=password", { body: { ...identifier, password } });
    this.save(toStoredSession(session), remember);
    return this.get() as StoredSession;
  }

  /** Signs up with an e-mail identity; Hikaya confirms at once, so a session comes back. */
  async signUp(email: string, password: string, data: Record<string, unknown>, remember: boolean) {
    const session = await this.#call<StoredSession>("/signup", { body: { email, password, data } });
    this.save(toStoredSession(session), remember);
    return this.get() as StoredSession;
  }

  /** Merges `data` into the signed-in person's user_metadata (a null value removes that key). */
  async updateUserData(data: Record<string, unknown>): Promise<SessionUser> {
    const session = await this.fresh();
    if (!session) throw new AuthApiError("Auth session missing!", 400, "session_not_found", "AuthSessionMissingError");
    return this.#call<SessionUser>("/user", { method: "PUT", body: { data }, token: session.access_token });
  }

  /** The user behind the current token, checked by the server. */
  async getUser(): Promise<SessionUser> {
    const session = await this.fresh();
    if (!session) throw new AuthApiError("Auth session missing!", 400, "session_not_found", "AuthSessionMissingError");
    return this.#call<SessionUser>("/user", { method: "GET", token: session.access_token });
  }

  /**
   * Passes the account's authenticator factor (TOTP) with the code the person typed, which raises the session to
   * aal2. Without `recovery` it is this stored session, whose verified factor is read from the server, and the raised
   * session is kept; with it, the given recovery session (a password reset's), which is not kept: its new access
   * token is returned.
   */
  async passFactor(code: string, recovery?: { accessToken: string; factorId: string }): Promise<StoredSession> {
    let token = recovery?.accessToken;
    let factorId = recovery?.factorId;
    if (!token || !factorId) {
      const session = await this.fresh();
      if (!session) throw new AuthApiError("Auth session missing!", 400, "session_not_found", "AuthSessionMissingError");
      token = session.access_token;
      const user = await this.#call<SessionUser & { factors?: { id: string; status: string }[] }>("/user", {
        method: "GET",
        token,
      });
      factorId = user.factors?.find((f) => f.status === "verified")?.id;
      if (!factorId) throw new AuthApiError("No verified factor", 404, "mfa_factor_not_found");
    }
    const challenge = await this.#call<{ id: string }>(`/factors/${factorId}/challenge`, { token, body: {} });
    const raised = toStoredSession(
      await this.#call<StoredSession>(`/factors/${factorId}/verify`, { token, body: { challenge_id: challenge.id, code } }),
    );
    if (!recovery) this.save(raised, this.remembered(), "TOKEN_REFRESHED");
    return raised;
  }

  /**
   * Log out: end the session on the server, then forget it here in every case. Spec section 8: 401,
   * 403 and 404 from sign-out are ignored; offline, the device is signed out all the same.
   */
  async signOut() {
    const session = this.get();
    try {
      if (session) await this.#call("/logout?scope=local", { token: session.access_token, body: {} });
    } catch {
      // Ignored by design (see above).
    } finally {
      this.clear();
    }
  }

  async #call<T>(path: string, init: { method?: string; body?: unknown; token?: string }): Promise<T> {
    const fetcher = this.#options.fetch ?? fetch;
    const headers: Record<string, string> = { apikey: await this.#options.apiKey() };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let res: Response;
    try {
      res = await fetcher(`/auth/v1${path}`, {
        method: init.method ?? "POST",
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    } catch {
      throw new AuthApiError("Failed to fetch", 0, undefined, "AuthRetryableFetchError");
    }
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // A proxy's HTML error page: keep the status, the message stays generic.
    }
    if (!res.ok) {
      const message = String(body.msg ?? body.message ?? body.error_description ?? res.statusText);
      const code = typeof body.error_code === "string" ? body.error_code : typeof body.code === "string" ? body.code : undefined;
      const wait = Number(res.headers.get("retry-after"));
      throw new AuthApiError(message, res.status, code, "AuthApiError", wait > 0 ? wait : undefined);
    }
    return body as T;
  }

  #emit(event: SessionEvent, session: StoredSession | null) {
    this.#options.onChange?.(event, session);
    for (const listener of this.#listeners) listener(event, session);
  }
}

function toStoredSession(value: StoredSession & { expires_in?: number }): StoredSession {
  const expiresAt = value.expires_at ?? Math.floor(Date.now() / 1000) + (value.expires_in ?? 3600);
  return { access_token: value.access_token, refresh_token: value.refresh_token, expires_at: expiresAt, user: value.user };
}
