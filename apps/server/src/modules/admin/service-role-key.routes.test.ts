import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe("POST /api/admin/service-role-key", () => {
  it("shows an admin the service-role key, uncached, and records that it was shown", async () => {
    const admin = await createTestUser(t.app, { admin: true });
    const res = await t.app.inject({ method: "POST", url: "/api/admin/service-role-key", headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const { serviceRoleKey } = res.json() as { serviceRoleKey: string };
    expect(await t.app.deps.auth.tokens.verifyRoleKey(serviceRoleKey)).toBe("service_role");
    // It works for the README's server-to-server admin calls.
    const users = await t.app.inject({
      url: "/auth/v1/admin/users",
      headers: { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}` },
    });
    expect(users.statusCode).toBe(200);
    const audit = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .select(["action", "actor_id"])
      .where("action", "=", "keys.service_role_shown")
      .execute();
    expect(audit).toEqual([{ action: "keys.service_role_shown", actor_id: admin.id }]);
  });

  it("refuses anyone signed out, a family member and a facilitator", async () => {
    expect((await t.app.inject({ method: "POST", url: "/api/admin/service-role-key" })).statusCode).toBe(401);
    const person = await createTestUser(t.app);
    const asPerson = await t.app.inject({ method: "POST", url: "/api/admin/service-role-key", headers: person.headers });
    expect(asPerson.statusCode).toBe(403);
    const facilitator = await createTestUser(t.app);
    await t.app.deps.db
      .updateTable("users")
      .set({ app_metadata: JSON.stringify({ provider: "email", role: "facilitator" }) })
      .where("id", "=", facilitator.id)
      .execute();
    const asFacilitator = await t.app.inject({
      method: "POST",
      url: "/api/admin/service-role-key",
      headers: facilitator.headers,
    });
    expect(asFacilitator.statusCode).toBe(403);
  });
});
