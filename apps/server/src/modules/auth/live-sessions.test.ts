import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/database.ts";
import { WriteWatch } from "../../db/write-watch.ts";
import type { App } from "../../deps.ts";
import { InProcessBus } from "../../infrastructure/bus/in-process-bus.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";
import type { LiveSessionRow } from "./auth.repository.ts";
import { REFRESH_REUSE_GRACE_MS } from "./auth-core.ts";
import { LiveSessions } from "./live-sessions.ts";

/**
 * The live-session cache: an authenticated request costs no database round trip, and a session that ends is
 * refused on the very next request, on this replica and (PostgreSQL) on another one on the same database.
 */
describe("LiveSessions", () => {
  const row = (userId: string): LiveSessionRow => ({ userId, idleUntil: Number.POSITIVE_INFINITY });

  it("asks the database once per session, then answers from memory", async () => {
    let lookups = 0;
    const live = new LiveSessions({
      maxBytes: 1_000_000,
      lookup: async () => {
        lookups++;
        return row("u1");
      },
    });
    expect(await live.isActive("s1")).toBe(true);
    expect(await live.isActive("s1")).toBe(true);
    expect(lookups).toBe(1);
  });

  it("stays within its bytes, evicting the least recently used session", async () => {
    const asked: string[] = [];
    const live = new LiveSessions({
      maxBytes: 1_000,
      lookup: async (id) => {
        asked.push(id);
        return row(`user-of-${id}`);
      },
    });
    for (let i = 1; i < 50; i++) {
      await live.isActive(`s${i}`);
      await live.isActive("s0"); // kept warm: never the one evicted
      expect(live.bytes).toBeLessThanOrEqual(1_000);
    }
    expect(asked.filter((id) => id === "s0")).toHaveLength(1);
    expect(live.size).toBeGreaterThan(1);
    expect(live.size).toBeLessThan(10);
    await live.isActive("s1"); // the oldest: evicted long ago, so read again
    expect(asked.filter((id) => id === "s1")).toHaveLength(2);
  });

  it("does not remember a lookup that an invalidation overtook", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let lookups = 0;
    const live = new LiveSessions({
      maxBytes: 1_000_000,
      lookup: async () => {
        lookups++;
        if (lookups === 1) await gate; // read "live" before the session ended, answered after
        return row("u1");
      },
    });
    const pending = live.isActive("s1");
    live.forget(new Set(["s1"]));
    release();
    await pending;
    expect(live.size).toBe(0);
    await live.isActive("s1");
    expect(lookups).toBe(2);
  });

  it("refuses a session idle past its deadline even while cached", async () => {
    let now = 1_000;
    const live = new LiveSessions({
      maxBytes: 1_000_000,
      lookup: async () => ({ userId: "u", idleUntil: 2_000 }),
      now: () => now,
    });
    expect(await live.isActive("s")).toBe(true);
    now = 2_000;
    expect(await live.isActive("s")).toBe(false);
  });

  it("drops every session of a user, and everything on a gap or an unknown signal", async () => {
    const bus = new InProcessBus();
    const live = new LiveSessions({ maxBytes: 1_000_000, lookup: async (id) => row(id.startsWith("a") ? "ua" : "ub") });
    await live.start({ database: { writes: new WriteWatch() }, bus });
    for (const id of ["a1", "a2", "b1"]) await live.isActive(id);
    live.forget(new Set(["ua"]));
    expect(live.size).toBe(1);
    await bus.publish("auth_sessions_ended", "?");
    await new Promise((r) => setImmediate(r));
    expect(live.size).toBe(0);
    await bus.close();
  });
});

const PASSWORD = "live-session-pass-1";

async function signUp(app: App) {
  const national = `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "JO", phoneNumber: national, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { token: string; refreshToken: string; user: { id: string } };
}

/** A second, separate session of the same person, signed in by phone and password. */
async function secondSession(app: App, via: App, userId: string): Promise<string> {
  const { phone } = await app.deps.db.selectFrom("users").select("phone").where("id", "=", userId).executeTakeFirstOrThrow();
  const res = await via.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: via.deps.auth.keys.anonKey },
    payload: { phone, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token as string;
}

const profile = (app: App, token: string) =>
  app.inject({ method: "POST", url: "/api/profile", headers: { authorization: `Bearer ${token}` } });

const logout = (app: App, token: string, scope: string) =>
  app.inject({
    method: "POST",
    url: `/auth/v1/logout?scope=${scope}`,
    headers: { apikey: app.deps.auth.keys.anonKey, authorization: `Bearer ${token}` },
  });

describe("sessions that end are refused on the next request (one app)", () => {
  let t: TestApp;
  let app: App;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000" });
    app = t.app;
    // A second connection to the same database: its writes are not seen by the app's write watch.
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await t?.close();
  });

  const serviceRole = () => ({
    apikey: app.deps.auth.keys.serviceRoleKey,
    authorization: `Bearer ${app.deps.auth.keys.serviceRoleKey}`,
  });

  it("serves a signed-in request without reading the session again", async () => {
    const s = await signUp(app);
    expect((await profile(app, s.token)).statusCode).toBe(200);
    // Removed behind the app's back (another connection): only the cache can still say "live".
    await behindItsBack.db.deleteFrom("sessions").where("user_id", "=", s.user.id).execute();
    expect((await profile(app, s.token)).statusCode).toBe(200);
  });

  it("a session removed by any code through the app's database is refused at once, by id or by user", async () => {
    const [one, two] = [await signUp(app), await signUp(app)];
    for (const s of [one, two]) expect((await profile(app, s.token)).statusCode).toBe(200);
    // No sign-out path and no declaration: the write watch reads which sessions the statement removed.
    const { id } = await app.deps.db
      .selectFrom("sessions")
      .select("id")
      .where("user_id", "=", one.user.id)
      .executeTakeFirstOrThrow();
    await app.deps.db.deleteFrom("sessions").where("id", "=", id).execute();
    await app.deps.db.deleteFrom("sessions").where("user_id", "=", two.user.id).execute();
    for (const s of [one, two]) expect((await profile(app, s.token)).statusCode).toBe(401);
  });

  it("log-out (local) ends the session at once", async () => {
    const s = await signUp(app);
    expect((await profile(app, s.token)).statusCode).toBe(200);
    expect((await logout(app, s.token, "local")).statusCode).toBe(204);
    expect((await profile(app, s.token)).statusCode).toBe(401);
  });

  it("a password change ends the person's other sessions at once", async () => {
    const s = await signUp(app);
    const secondToken = await secondSession(app, app, s.user.id);
    expect((await profile(app, secondToken)).statusCode).toBe(200);
    const changed = await app.inject({
      method: "POST",
      url: "/api/change-password",
      headers: { authorization: `Bearer ${s.token}` },
      payload: { oldPassword: PASSWORD, newPassword: "live-session-pass-2" },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await profile(app, secondToken)).statusCode).toBe(401);
    expect((await profile(app, s.token)).statusCode).toBe(200);
  });

  it("a person deleting their own account ends its sessions at once", async () => {
    const s = await signUp(app);
    expect((await profile(app, s.token)).statusCode).toBe(200);
    const res = await app.inject({
      method: "POST",
      url: "/api/account/delete",
      headers: { authorization: `Bearer ${s.token}` },
      payload: { password: PASSWORD },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await profile(app, s.token)).statusCode).toBe(401);
  });

  it("reusing a rotated refresh token after the grace interval ends the session at once", async () => {
    const s = await signUp(app);
    expect((await profile(app, s.token)).statusCode).toBe(200);
    const refresh = (token: string) =>
      app.inject({
        method: "POST",
        url: "/auth/v1/token?grant_type=refresh_token",
        headers: { apikey: app.deps.auth.keys.anonKey },
        payload: { refresh_token: token },
      });
    const rotated = await refresh(s.refreshToken);
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await refresh(rotated.json().refresh_token as string)).statusCode).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + REFRESH_REUSE_GRACE_MS + 1000 });
    try {
      expect((await refresh(s.refreshToken)).json()).toMatchObject({ error_code: "refresh_token_already_used" });
      expect((await profile(app, s.token)).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an admin ban and an admin deletion end the person's sessions at once", async () => {
    const banned = await signUp(app);
    const deleted = await signUp(app);
    for (const s of [banned, deleted]) expect((await profile(app, s.token)).statusCode).toBe(200);
    const ban = await app.inject({
      method: "PUT",
      url: `/auth/v1/admin/users/${banned.user.id}`,
      headers: serviceRole(),
      payload: { ban_duration: "24h" },
    });
    expect(ban.statusCode, ban.body).toBe(200);
    expect((await profile(app, banned.token)).statusCode).toBe(401);
    const del = await app.inject({ method: "DELETE", url: `/auth/v1/admin/users/${deleted.user.id}`, headers: serviceRole() });
    expect(del.statusCode, del.body).toBe(200);
    expect((await profile(app, deleted.token)).statusCode).toBe(401);
  });
});

describe.runIf(testDialect() === "postgres")("two replicas on one PostgreSQL database", () => {
  let replicas: TwoReplicas;
  let a: App;
  let b: App;
  beforeAll(async () => {
    replicas = await twoReplicas({ AUTH_RATE_LIMIT_FACTOR: "1000" });
    a = replicas.app;
    b = replicas.replica;
  });
  afterAll(async () => replicas?.close());

  it("a session signed out on replica A is refused on replica B on the very next request", async () => {
    const s = await signUp(a);
    // Both replicas have it cached as live.
    expect((await profile(a, s.token)).statusCode).toBe(200);
    expect((await profile(b, s.token)).statusCode).toBe(200);
    expect((await logout(a, s.token, "global")).statusCode).toBe(204);
    expect((await profile(b, s.token)).statusCode).toBe(401);
    expect((await profile(a, s.token)).statusCode).toBe(401);
  });

  it("a password change on replica B ends the other sessions cached on replica A", async () => {
    const s = await signUp(a);
    const secondToken = await secondSession(a, b, s.user.id);
    expect((await profile(a, secondToken)).statusCode).toBe(200);
    const changed = await b.inject({
      method: "POST",
      url: "/api/change-password",
      headers: { authorization: `Bearer ${s.token}` },
      payload: { oldPassword: PASSWORD, newPassword: "live-session-pass-2" },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await profile(a, secondToken)).statusCode).toBe(401);
  });

  // The bus confirms: B answers only after A has dropped the session from its cache, so A's very next request is
  // refused (without confirmation A read the NOTIFY a moment after B's answer, and this failed).
  it("a person blocked in the console on replica B is refused on replica A on the very next request", async () => {
    const s = await signUp(a);
    expect((await profile(a, s.token)).statusCode).toBe(200);
    const admin = await createTestUser(b, { admin: true });
    const blocked = await b.inject({
      method: "PUT",
      url: `/api/admin/users/${s.user.id}/block`,
      headers: admin.headers,
      payload: { blocked: true },
    });
    expect(blocked.statusCode, blocked.body).toBe(200);
    expect((await profile(a, s.token)).statusCode).toBe(401);
  });
});
