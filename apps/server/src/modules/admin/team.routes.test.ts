import type { TeamMember } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

const team = async (): Promise<TeamMember[]> =>
  (await t.app.inject({ method: "GET", url: "/api/admin/team", headers: admin.headers })).json();

describe("the console team", () => {
  it("invites a facilitator by e-mail: the invitation goes through the outbox and they are listed, unconfirmed", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { email: "Layla@Example.org", role: "facilitator" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: "layla@example.org", role: "facilitator", confirmed: false });
    const outbox = await t.app.deps.db
      .selectFrom("sms_outbox")
      .selectAll()
      .where("recipient", "=", "layla@example.org")
      .execute();
    expect(outbox).toHaveLength(1);
    expect((await team()).map((m) => [m.email, m.role])).toContainEqual(["layla@example.org", "facilitator"]);
  });

  it("invites an admin by phone", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { phone: "+971501234567", role: "admin" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ phone: "+971501234567", role: "admin" });
  });

  it("refuses an invitation with neither or both of e-mail and phone, or an unknown role", async () => {
    for (const payload of [
      { role: "admin" },
      { email: "a@b.org", phone: "+971501234568", role: "admin" },
      { email: "c@d.org", role: "owner" },
    ]) {
      const res = await t.app.inject({ method: "POST", url: "/api/admin/team", headers: admin.headers, payload });
      expect(res.statusCode).toBe(400);
    }
  });

  it("changing a role ends the person's sessions: their old token is refused", async () => {
    const fac = await createTestUser(t.app, { role: "facilitator" });
    expect((await t.app.inject({ method: "GET", url: "/api/admin/conversations", headers: fac.headers })).statusCode).toBe(200);
    const res = await t.app.inject({
      method: "PUT",
      url: `/api/admin/team/${fac.id}`,
      headers: admin.headers,
      payload: { role: "admin" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: fac.id, role: "admin" });
    expect((await t.app.inject({ method: "GET", url: "/api/admin/conversations", headers: fac.headers })).statusCode).toBe(401);
  });

  it("a removed operator's old token is refused and they leave the list", async () => {
    const fac = await createTestUser(t.app, { role: "facilitator" });
    const res = await t.app.inject({ method: "DELETE", url: `/api/admin/team/${fac.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const after = await t.app.inject({ method: "GET", url: "/api/admin/conversations", headers: fac.headers });
    expect(after.statusCode).toBe(401);
    expect((await team()).some((m) => m.id === fac.id)).toBe(false);
    const entries = await t.app.inject({ method: "GET", url: "/api/admin/audit?action=team.remove", headers: admin.headers });
    expect(entries.json()).toEqual([expect.objectContaining({ action: "team.remove", targetId: fac.id })]);
  });

  it("an admin cannot change or remove themselves, and a person outside the team is not found", async () => {
    const self = await t.app.inject({ method: "DELETE", url: `/api/admin/team/${admin.id}`, headers: admin.headers });
    expect(self.statusCode).toBe(400);
    const family = await createTestUser(t.app);
    const outsider = await t.app.inject({
      method: "PUT",
      url: `/api/admin/team/${family.id}`,
      headers: admin.headers,
      payload: { role: "admin" },
    });
    expect(outsider.statusCode).toBe(404);
    const still = await t.app.inject({ method: "GET", url: "/api/admin/stories", headers: admin.headers });
    expect(still.statusCode).toBe(200);
  });
});
