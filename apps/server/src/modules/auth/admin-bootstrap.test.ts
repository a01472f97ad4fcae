import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../config.ts";
import type { App } from "../../deps.ts";
import { createReplica, createTestApp, type TestApp } from "../../test/test-app.ts";

/**
 * ADMIN_EMAIL at start-up. Sign-up needs no mailbox, so anyone may register the address first: start-up makes such an
 * account an admin only when ADMIN_EMAIL_PROMOTE_EXISTING=true, and then (as for any promotion) ends every session the
 * account had, so the registrant's kept session cannot refresh into an admin token.
 */

const PASSWORD = "registrant-pass-1";
const ADMIN_PASSWORD = "operator-pass-1";
let n = 0;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000" });
});
afterAll(async () => t?.close());

const anon = (app: App) => ({ apikey: app.deps.auth.keys.anonKey });

/** Someone registers the address through /auth/v1/signup and keeps the session. */
async function register(email: string) {
  const res = await t.app.inject({
    method: "POST",
    url: "/auth/v1/signup",
    headers: anon(t.app),
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { access_token: string; refresh_token: string };
  expect(body.refresh_token).toBeTruthy();
  return { token: body.access_token, refreshToken: body.refresh_token };
}

/** A server started on the same database and keys with ADMIN_EMAIL set (a restart with a new configuration). */
const startWith = (admin: NonNullable<Config["admin"]>) => createReplica({ ...t.config, admin });

const refresh = (app: App, refreshToken: string) =>
  app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=refresh_token",
    headers: anon(app),
    payload: { refresh_token: refreshToken },
  });

const profile = (app: App, token: string) =>
  app.inject({ method: "POST", url: "/api/profile", headers: { authorization: `Bearer ${token}` } });

const signIn = (app: App, email: string, password: string) =>
  app.inject({ method: "POST", url: "/auth/v1/token?grant_type=password", headers: anon(app), payload: { email, password } });

const roleOf = async (email: string) => {
  const row = await t.app.deps.db.selectFrom("users").select("app_metadata").where("email", "=", email).executeTakeFirstOrThrow();
  return (JSON.parse(row.app_metadata) as { role?: string }).role;
};

describe("ADMIN_EMAIL naming an account start-up did not create", () => {
  it("stops start-up with one line naming ADMIN_EMAIL_PROMOTE_EXISTING, and leaves the account and its session as they were", async () => {
    const email = `taken${++n}@example.com`;
    const registrant = await register(email);
    await expect(startWith({ email, password: ADMIN_PASSWORD, promoteExisting: false })).rejects.toThrow(
      /^ADMIN_EMAIL names an existing account \S+ [^\n]*ADMIN_EMAIL_PROMOTE_EXISTING=true[^\n]*$/,
    );
    expect(await roleOf(email)).toBeUndefined();
    const refreshed = await refresh(t.app, registrant.refreshToken);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().user.app_metadata.role).toBeUndefined();
  });

  it("with ADMIN_EMAIL_PROMOTE_EXISTING=true promotes it and ends every session it had", async () => {
    const email = `adopted${++n}@example.com`;
    const registrant = await register(email);
    const server = await startWith({ email, password: ADMIN_PASSWORD, promoteExisting: true });
    try {
      expect(await roleOf(email)).toBe("admin");
      expect((await profile(server, registrant.token)).statusCode).toBe(401);
      expect((await refresh(server, registrant.refreshToken)).json()).toMatchObject({ error_code: "refresh_token_not_found" });
      expect((await signIn(server, email, PASSWORD)).statusCode).toBe(400);
      const operator = await signIn(server, email, ADMIN_PASSWORD);
      expect(operator.statusCode, operator.body).toBe(200);
      const outbox = await server.inject({
        method: "GET",
        url: "/api/admin/sms-outbox",
        headers: { authorization: `Bearer ${operator.json().access_token}` },
      });
      expect(outbox.statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("ADMIN_EMAIL naming the account start-up created", () => {
  it("is updated on a later start without the setting: a new password, a role given back, its sessions ended", async () => {
    const email = `boss${++n}@example.com`;
    const first = await startWith({ email, password: ADMIN_PASSWORD, promoteExisting: false });
    let token: string;
    try {
      const signedIn = await signIn(first, email, ADMIN_PASSWORD);
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      token = signedIn.json().access_token;
      // Demoted in the meantime (the console, or the admin API).
      const demoted = await first.inject({
        method: "PUT",
        url: `/auth/v1/admin/users/${signedIn.json().user.id}`,
        headers: { apikey: first.deps.auth.keys.serviceRoleKey, authorization: `Bearer ${first.deps.auth.keys.serviceRoleKey}` },
        payload: { app_metadata: { role: "facilitator" } },
      });
      expect(demoted.statusCode, demoted.body).toBe(200);
      const again = await signIn(first, email, ADMIN_PASSWORD);
      token = again.json().access_token;
    } finally {
      await first.close();
    }
    const second = await startWith({ email, password: "operator-pass-2", promoteExisting: false });
    try {
      expect(await roleOf(email)).toBe("admin");
      expect((await profile(second, token)).statusCode).toBe(401);
      expect((await signIn(second, email, "operator-pass-2")).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });
});
