import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";

/**
 * A token carries the role it was issued with, so every way of changing a role ends the person's sessions at once:
 * the Supabase admin API, the console's team page and an admin's own PUT /user. Otherwise a demoted admin keeps
 * admin powers with the token they hold (and refresh into new ones) until it expires.
 */

const PASSWORD = "role-change-pass-1";
let n = 0;

const serviceRole = (app: App) => ({
  apikey: app.deps.auth.keys.serviceRoleKey,
  authorization: `Bearer ${app.deps.auth.keys.serviceRoleKey}`,
});

/** An admin created through the admin API, signed in by password (on `via`): their access and refresh tokens. */
async function signedInAdmin(app: App, via: App = app) {
  const email = `role-admin-${++n}-${Date.now()}@users.hikaya.app`;
  const created = await app.inject({
    method: "POST",
    url: "/auth/v1/admin/users",
    headers: serviceRole(app),
    payload: { email, password: PASSWORD, email_confirm: true, app_metadata: { role: "admin" } },
  });
  expect(created.statusCode, created.body).toBe(200);
  const signedIn = await via.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: via.deps.auth.keys.anonKey },
    payload: { email, password: PASSWORD },
  });
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  const body = signedIn.json() as { access_token: string; refresh_token: string };
  return { id: created.json().id as string, token: body.access_token, refreshToken: body.refresh_token };
}

const outbox = (app: App, token: string) =>
  app.inject({ method: "GET", url: "/api/admin/sms-outbox", headers: { authorization: `Bearer ${token}` } });

const refresh = (app: App, refreshToken: string) =>
  app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=refresh_token",
    headers: { apikey: app.deps.auth.keys.anonKey },
    payload: { refresh_token: refreshToken },
  });

const demote = (app: App, id: string) =>
  app.inject({
    method: "PUT",
    url: `/auth/v1/admin/users/${id}`,
    headers: serviceRole(app),
    payload: { app_metadata: { role: "facilitator" } },
  });

describe("a role change ends the person's sessions (one app)", () => {
  let t: TestApp;
  let app: App;
  beforeAll(async () => {
    t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000" });
    app = t.app;
  });
  afterAll(async () => t?.close());

  it("an admin demoted through PUT /auth/v1/admin/users/{id} loses the old token and its refresh token at once", async () => {
    const admin = await signedInAdmin(app);
    expect((await outbox(app, admin.token)).statusCode).toBe(200); // cached as live and verified
    const demoted = await demote(app, admin.id);
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(demoted.json().app_metadata.role).toBe("facilitator");
    expect((await outbox(app, admin.token)).statusCode).toBe(401);
    const refreshed = await refresh(app, admin.refreshToken);
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json()).toMatchObject({ error_code: "refresh_token_not_found" });
  });

  it("an update that keeps the role keeps the sessions", async () => {
    const admin = await signedInAdmin(app);
    const kept = await app.inject({
      method: "PUT",
      url: `/auth/v1/admin/users/${admin.id}`,
      headers: serviceRole(app),
      payload: { app_metadata: { role: "admin", note: "same role" }, user_metadata: { name: "Rana" } },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect((await outbox(app, admin.token)).statusCode).toBe(200);
  });

  it("an admin changing their own role through PUT /auth/v1/user ends their sessions too", async () => {
    const admin = await signedInAdmin(app);
    expect((await outbox(app, admin.token)).statusCode).toBe(200);
    const changed = await app.inject({
      method: "PUT",
      url: "/auth/v1/user",
      headers: { apikey: app.deps.auth.keys.anonKey, authorization: `Bearer ${admin.token}` },
      payload: { app_metadata: { role: "facilitator" } },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await outbox(app, admin.token)).statusCode).toBe(401);
    expect((await refresh(app, admin.refreshToken)).statusCode).toBe(400);
  });
});

describe.runIf(testDialect() === "postgres")("a role change on one replica (two replicas on one PostgreSQL database)", () => {
  let replicas: TwoReplicas;
  beforeAll(async () => {
    replicas = await twoReplicas({ AUTH_RATE_LIMIT_FACTOR: "1000" });
  });
  afterAll(async () => replicas?.close());

  it("an admin demoted on replica A is refused on replica B on the very next request", async () => {
    const a = replicas.app;
    const b = replicas.replica;
    const admin = await signedInAdmin(a, b);
    expect((await outbox(b, admin.token)).statusCode).toBe(200);
    expect((await demote(a, admin.id)).statusCode).toBe(200);
    expect((await outbox(b, admin.token)).statusCode).toBe(401);
    expect((await refresh(b, admin.refreshToken)).statusCode).toBe(400);
  });
});
