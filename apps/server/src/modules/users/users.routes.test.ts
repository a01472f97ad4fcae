import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;
let user: TestUser;
beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  user = await createTestUser(t.app, { phone: "+962790000001" });
  const now = new Date().toISOString();
  await t.app.deps.db
    .insertInto("profiles")
    .values({
      user_id: user.id,
      name: "Rana",
      phone_number: "+962790000001",
      country_code: "JO",
      from_landing_page: 1,
      agree_to_reminder: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const first = await t.app.deps.db.selectFrom("stories").select("id").where("position", "=", 1).executeTakeFirstOrThrow();
  await t.app.inject({ method: "POST", url: `/api/users/${user.id}/watchStory/${first.id}`, headers: user.headers });
});
afterAll(() => t.close());

describe("users", () => {
  it("lists users for admins with progress, newest first, paged and searchable", async () => {
    const res = await t.app.inject({ url: "/api/users?limit=10", headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBeGreaterThanOrEqual(2);
    const rana = body.items.find((u: { id: string }) => u.id === user.id);
    expect(rana).toMatchObject({
      name: "Rana",
      phoneNumber: "+962790000001",
      countryCode: "JO",
      fromLandingPage: true,
      lastWatchedStoryId: 1,
      watchedCount: 1,
      isAdmin: false,
    });
    const found = await t.app.inject({ url: "/api/users?q=ran", headers: admin.headers });
    expect(found.json().items.map((u: { id: string }) => u.id)).toEqual([user.id]);
    const page = await t.app.inject({ url: "/api/users?limit=1&offset=1", headers: admin.headers });
    expect(page.json().items).toHaveLength(1);
    expect((await t.app.inject({ url: "/api/users?limit=0", headers: admin.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ url: "/api/users?limit=abc", headers: admin.headers })).statusCode).toBe(400);
  });

  it("lets a user read only their own record", async () => {
    const own = await t.app.inject({ url: `/api/users/${user.id}`, headers: user.headers });
    expect(own.json()).toMatchObject({ id: user.id, lastWatchedStoryId: 1 });
    expect((await t.app.inject({ url: `/api/users/${admin.id}`, headers: user.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url: `/api/users/${admin.id}`, headers: admin.headers })).json().isAdmin).toBe(true);
  });
});
