// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tokenApi } from "./api-client.ts";
import { getAccessToken, userSession } from "./session.ts";

/** A server that knows one valid access token at a time and rotates it on refresh. */
function fakeServer() {
  let valid = "access-2";
  const seen: string[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = (init?.headers ?? {}) as Record<string, string>;
    seen.push(`${url} ${headers.authorization ?? ""}`.trim());
    if (url === "/api/settings") return Response.json({ anonKey: "anon" });
    if (url.startsWith("/auth/v1/token?grant_type=refresh_token"))
      return Response.json({ access_token: valid, refresh_token: "refresh-2", expires_in: 3600, user: { id: "u1" } });
    if (headers.authorization === `Bearer ${valid}`) return Response.json({ code: 200, data: { ok: true } });
    return Response.json({ code: 401, data: "JWT has expired", errorCode: "token_expired" }, { status: 401 });
  });
  return { fetch, seen, rotate: (next: string) => (valid = next) };
}

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => vi.unstubAllGlobals());

describe("the token API with a session over time", () => {
  it("refreshes an expired access token before the call, and mirrors the spec's token key", async () => {
    const server = fakeServer();
    vi.stubGlobal("fetch", server.fetch);
    userSession.save(
      { access_token: "access-1", refresh_token: "refresh-1", expires_at: Math.floor(Date.now() / 1000) - 1, user: { id: "u1" } },
      true,
    );
    expect(await tokenApi("/profile")).toEqual({ ok: true });
    expect(server.seen.filter((s) => s.startsWith("/api/profile"))).toEqual(["/api/profile Bearer access-2"]);
    expect(getAccessToken()).toBe("access-2");
  });

  it("refreshes once and tries again when the server refuses a token it thought was fresh", async () => {
    const server = fakeServer();
    vi.stubGlobal("fetch", server.fetch);
    userSession.save(
      {
        access_token: "access-1",
        refresh_token: "refresh-1",
        expires_at: Math.floor(Date.now() / 1000) + 3600,
        user: { id: "u1" },
      },
      true,
    );
    expect(await tokenApi("/profile")).toEqual({ ok: true });
    expect(server.seen.filter((s) => s.startsWith("/api/profile"))).toEqual([
      "/api/profile Bearer access-1",
      "/api/profile Bearer access-2",
    ]);
  });
});
