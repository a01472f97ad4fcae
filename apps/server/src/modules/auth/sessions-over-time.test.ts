import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

/**
 * Sessions over hours and months, in seconds: access tokens live 1 s here (JWT_EXPIRY_SECONDS), and a
 * session's last refresh is moved back in the database to stand for weeks without the app.
 */
let t: TestApp;
let app: App;

beforeAll(async () => {
  t = await createTestApp({ JWT_EXPIRY_SECONDS: "1", SESSION_INACTIVITY_DAYS: "90" });
  app = t.app;
});
afterAll(async () => t?.close());

async function phoneSignUp() {
  const national = `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "JO", phoneNumber: national, password: "session-pass-1" },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { token: string; refreshToken: string; expiresAt: number; user: { id: string } };
}

const refresh = (refreshToken: string) =>
  app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=refresh_token",
    headers: { apikey: app.deps.auth.keys.anonKey },
    payload: { refresh_token: refreshToken },
  });

describe("sessions over time", () => {
  it("the phone sign-up's refresh token renews the session after its access token expires", async () => {
    const s = await phoneSignUp();
    expect(s.expiresAt - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1100));
    const stale = await app.inject({ method: "POST", url: "/api/profile", headers: { authorization: `Bearer ${s.token}` } });
    expect(stale.statusCode).toBe(401);
    const renewed = await refresh(s.refreshToken);
    expect(renewed.statusCode, renewed.body).toBe(200);
    const fresh = renewed.json().access_token as string;
    const ok = await app.inject({ method: "POST", url: "/api/profile", headers: { authorization: `Bearer ${fresh}` } });
    expect(ok.statusCode).toBe(200);
  });

  it("a session used within SESSION_INACTIVITY_DAYS goes on; one left longer ends", async () => {
    const used = await phoneSignUp();
    const idle = await phoneSignUp();
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await app.deps.db
      .updateTable("sessions")
      .set({ refreshed_at: daysAgo(89) })
      .where("user_id", "=", used.user.id)
      .execute();
    await app.deps.db
      .updateTable("sessions")
      .set({ refreshed_at: daysAgo(91), created_at: daysAgo(200) })
      .where("user_id", "=", idle.user.id)
      .execute();
    expect((await refresh(used.refreshToken)).statusCode).toBe(200);
    const expired = await refresh(idle.refreshToken);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error_code).toBe("session_expired");
    // Ended for good: the session is gone.
    const rows = await app.deps.db.selectFrom("sessions").select("id").where("user_id", "=", idle.user.id).execute();
    expect(rows).toEqual([]);
  });
});
