// @vitest-environment jsdom
import { AUTH_REFRESH_TICK_MS } from "@hikaya/contracts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthApiError, AuthSession, type StoredSession } from "./auth-session.ts";

/**
 * The session client against a fake /auth/v1 at the fetch level: each test scripts the server's
 * answers and reads back what was sent.
 */
type Reply = { status: number; body?: unknown } | "offline";

function fakeAuthServer() {
  const calls: { path: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
  const replies: Reply[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    calls.push({
      path,
      method: init?.method ?? "GET",
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    });
    const reply = replies.shift() ?? { status: 500, body: { msg: "no scripted reply" } };
    if (reply === "offline") throw new TypeError("Failed to fetch");
    return new Response(reply.body === undefined ? "" : JSON.stringify(reply.body), { status: reply.status });
  });
  return { calls, replies, fetch };
}

const NOW_S = 1_800_000_000;
let now = NOW_S * 1000;

function session(n: number, expiresInS = 3600): StoredSession {
  return { access_token: `access-${n}`, refresh_token: `refresh-${n}`, expires_at: now / 1000 + expiresInS, user: { id: "u1" } };
}

function make(server: ReturnType<typeof fakeAuthServer>, storageKey = "test-auth") {
  const events: string[] = [];
  const auth = new AuthSession({
    storageKey,
    apiKey: async () => "anon-key",
    fetch: server.fetch as unknown as typeof fetch,
    now: () => now,
    onChange: (event) => events.push(event),
  });
  return { auth, events };
}

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  now = NOW_S * 1000;
  vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearInterval", "clearTimeout"] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("Remember Me", () => {
  it("keeps a remembered session in localStorage and a forgotten one in sessionStorage", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    server.replies.push({ status: 200, body: session(1) });
    await auth.signInWithPassword({ email: "a@b.c" }, "pw", true);
    expect(localStorage.getItem("test-auth")).toContain("refresh-1");
    expect(sessionStorage.getItem("test-auth")).toBeNull();

    server.replies.push({ status: 200, body: session(2) });
    await auth.signInWithPassword({ email: "a@b.c" }, "pw", false);
    expect(localStorage.getItem("test-auth")).toBeNull();
    expect(sessionStorage.getItem("test-auth")).toContain("refresh-2");
    expect(auth.remembered()).toBe(false);
  });

  it("sends the apikey with every call, and the bearer token on log-out", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    server.replies.push({ status: 200, body: session(1) }, { status: 204 });
    await auth.signInWithPassword({ phone: "+962790000000" }, "pw", true);
    await auth.signOut();
    expect(server.calls.map((c) => [c.path, c.headers.apikey])).toEqual([
      ["/auth/v1/token?grant_type=password", "anon-key"],
      ["/auth/v1/logout?scope=local", "anon-key"],
    ]);
    expect(server.calls[1]?.headers.authorization).toBe("Bearer access-1");
  });
});

describe("refresh", () => {
  it("refreshes on a tick only when three ticks or fewer remain", async () => {
    const server = fakeAuthServer();
    const { auth, events } = make(server);
    auth.save(session(1, 3600), true);
    auth.start();
    await vi.advanceTimersByTimeAsync(AUTH_REFRESH_TICK_MS);
    expect(server.calls).toHaveLength(0);

    now += (3600 - 90) * 1000; // exactly three ticks left
    server.replies.push({ status: 200, body: session(2) });
    await vi.advanceTimersByTimeAsync(AUTH_REFRESH_TICK_MS);
    expect(server.calls.map((c) => c.path)).toEqual(["/auth/v1/token?grant_type=refresh_token"]);
    expect(server.calls[0]?.body).toEqual({ refresh_token: "refresh-1" });
    expect(auth.accessToken()).toBe("access-2");
    expect(events).toContain("TOKEN_REFRESHED");
    auth.stop();
  });

  it("keeps Remember Me's storage when it refreshes", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    auth.save(session(1, 0), false);
    server.replies.push({ status: 200, body: session(2) });
    await auth.fresh();
    expect(sessionStorage.getItem("test-auth")).toContain("refresh-2");
    expect(localStorage.getItem("test-auth")).toBeNull();
  });

  it("retries retryable failures with backoff from 200 ms doubling", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    auth.save(session(1, 0), true);
    server.replies.push("offline", { status: 503 }, { status: 429 }, { status: 200, body: session(2) });
    const done = auth.refresh();
    await vi.advanceTimersByTimeAsync(199);
    expect(server.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(server.calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(800);
    await done;
    expect(server.calls).toHaveLength(4);
    expect(auth.accessToken()).toBe("access-2");
  });

  it("ends the session when the server refuses the refresh token", async () => {
    const server = fakeAuthServer();
    const { auth, events } = make(server);
    auth.save(session(1, 0), true);
    server.replies.push({ status: 400, body: { error_code: "refresh_token_not_found", msg: "Invalid Refresh Token" } });
    await expect(auth.refresh()).rejects.toBeInstanceOf(AuthApiError);
    expect(auth.get()).toBeNull();
    expect(localStorage.getItem("test-auth")).toBeNull();
    expect(events.at(-1)).toBe("SIGNED_OUT");
  });

  it("shares one refresh between concurrent callers, so a refresh token is spent once", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    auth.save(session(1, 0), true);
    server.replies.push({ status: 200, body: session(2) });
    const [a, b] = await Promise.all([auth.fresh(), auth.fresh()]);
    expect(server.calls).toHaveLength(1);
    expect(a?.access_token).toBe("access-2");
    expect(b?.access_token).toBe("access-2");
  });

  it("takes turns with another tab and uses its fresh tokens instead of spending the old refresh token", async () => {
    // Chromium's Web Locks, reduced to what the session uses: one holder per name at a time.
    const queues = new Map<string, Promise<unknown>>();
    const locks = {
      request: (name: string, run: () => Promise<unknown>) => {
        const next = (queues.get(name) ?? Promise.resolve()).then(run, run);
        queues.set(
          name,
          next.catch(() => undefined),
        );
        return next;
      },
    };
    Object.defineProperty(navigator, "locks", { value: locks, configurable: true });
    try {
      const server = fakeAuthServer();
      const tabA = make(server).auth;
      const tabB = make(server).auth;
      tabA.save(session(1, 0), true);
      // One rotation is answered; a second use of refresh-1 would be refused as reuse.
      server.replies.push({ status: 200, body: session(2) }, { status: 400, body: { error_code: "refresh_token_not_found" } });
      const [a, b] = await Promise.all([tabA.refresh(), tabB.refresh()]);
      expect(server.calls).toHaveLength(1);
      expect(a?.access_token).toBe("access-2");
      expect(b?.access_token).toBe("access-2");
    } finally {
      Reflect.deleteProperty(navigator, "locks");
    }
  });

  it("tells its listeners when another tab signs out or refreshes", () => {
    const server = fakeAuthServer();
    const { auth, events } = make(server);
    auth.save(session(1), true);
    auth.start();
    localStorage.setItem("test-auth", JSON.stringify(session(2)));
    window.dispatchEvent(new StorageEvent("storage", { key: "test-auth" }));
    localStorage.removeItem("test-auth");
    window.dispatchEvent(new StorageEvent("storage", { key: "test-auth" }));
    expect(events.slice(-2)).toEqual(["TOKEN_REFRESHED", "SIGNED_OUT"]);
    auth.stop();
  });
});

describe("log out", () => {
  it.each([401, 403, 404])("signs the device out even when sign-out answers %i", async (status) => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    auth.save(session(1), true);
    server.replies.push({ status, body: { msg: "gone" } });
    await auth.signOut();
    expect(auth.get()).toBeNull();
  });

  it("signs the device out when offline", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    auth.save(session(1), true);
    server.replies.push("offline");
    await auth.signOut();
    expect(auth.get()).toBeNull();
  });

  it("keeps the user app's and the console's sessions apart", () => {
    const server = fakeAuthServer();
    const user = make(server, "hikaya-auth").auth;
    const console = make(server, "hikaya-console-auth").auth;
    user.save(session(1), true);
    console.save(session(2), true);
    user.clear();
    expect(console.accessToken()).toBe("access-2");
  });
});

describe("passing the authenticator factor", () => {
  it("raises the stored session: its verified factor from /user, then challenge and verify, and keeps the answer", async () => {
    const server = fakeAuthServer();
    const { auth, events } = make(server);
    auth.save(session(1), true);
    server.replies.push(
      {
        status: 200,
        body: {
          id: "u1",
          factors: [
            { id: "f-new", status: "unverified" },
            { id: "f1", status: "verified" },
          ],
        },
      },
      { status: 200, body: { id: "c1" } },
      { status: 200, body: session(2) },
    );
    await auth.passFactor("123456");
    expect(server.calls.map((c) => [c.method, c.path, c.headers.authorization])).toEqual([
      ["GET", "/auth/v1/user", "Bearer access-1"],
      ["POST", "/auth/v1/factors/f1/challenge", "Bearer access-1"],
      ["POST", "/auth/v1/factors/f1/verify", "Bearer access-1"],
    ]);
    expect(server.calls[2]?.body).toEqual({ challenge_id: "c1", code: "123456" });
    expect(auth.accessToken()).toBe("access-2");
    expect(auth.remembered()).toBe(true);
    expect(events.at(-1)).toBe("TOKEN_REFRESHED");
  });

  it("passes a reset's recovery session without keeping it, and a wrong code is the server's refusal", async () => {
    const server = fakeAuthServer();
    const { auth } = make(server);
    server.replies.push({ status: 200, body: { id: "c1" } }, { status: 200, body: session(3) });
    const raised = await auth.passFactor("123456", { accessToken: "recovery", factorId: "f9" });
    expect(raised.access_token).toBe("access-3");
    expect(server.calls.map((c) => [c.path, c.headers.authorization])).toEqual([
      ["/auth/v1/factors/f9/challenge", "Bearer recovery"],
      ["/auth/v1/factors/f9/verify", "Bearer recovery"],
    ]);
    expect(auth.get()).toBeNull();

    server.replies.push(
      { status: 200, body: { id: "c2" } },
      { status: 422, body: { code: 422, error_code: "mfa_verification_failed", msg: "Invalid TOTP code entered" } },
    );
    const refused = await auth.passFactor("000000", { accessToken: "recovery", factorId: "f9" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthApiError);
    expect(refused).toMatchObject({ status: 422, code: "mfa_verification_failed" });
  });
});
