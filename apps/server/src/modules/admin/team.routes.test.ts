import type { TeamMember } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOutboxMessages } from "../../infrastructure/sms/index.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

const PASSWORD = "operator-pass-1";

async function invitationTo(phone: string): Promise<{ code: string; body: string }> {
  const [message] = await listOutboxMessages(t.app.deps.db, { limit: 1, recipient: phone });
  const code = message?.body.match(/(\d{6})/)?.[1];
  if (!message || !code) throw new Error(`no invitation sent to ${phone}`);
  return { code, body: message.body };
}

const join = (phone: string, code: string, password = PASSWORD) =>
  t.app.inject({ method: "POST", url: "/api/team/join", payload: { phone, code, password } });

const phoneSignIn = (phone: string, password = PASSWORD) =>
  t.app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: t.app.deps.auth.keys.anonKey },
    payload: { phone, password },
  });

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

  it("invites an admin by phone: a code and a link to the join page go through the outbox; the code sets their password", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: { ...admin.headers, "accept-language": "ar" },
      payload: { phone: "+971501234567", role: "admin" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ phone: "+971501234567", role: "admin", confirmed: false });
    const { code, body } = await invitationTo("+971501234567");
    expect(body).toContain("أنت مدعوّ إلى حكاية");
    expect(body).toContain(`/admin/join?phone=%2B971501234567&code=${code}`);

    // A weak password is refused before the code is spent.
    expect((await join("+971501234567", code, "123")).statusCode).toBe(422);
    const joined = await join("971 50 123 4567", code);
    expect(joined.statusCode, joined.body).toBe(200);
    const signIn = await phoneSignIn("+971501234567");
    expect(signIn.statusCode, signIn.body).toBe(200);
    expect(signIn.json().user.app_metadata).toMatchObject({ role: "admin" });
    expect((await team()).find((m) => m.phone === "+971501234567")).toMatchObject({ confirmed: true });
  });

  it("a reused, expired or wrong invitation code is refused with invite_invalid and changes nothing", async () => {
    const phone = "+971501234570";
    await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { phone, role: "facilitator" },
    });
    const { code } = await invitationTo(phone);
    expect((await join(phone, code)).statusCode).toBe(200);
    const reused = await join(phone, code, "another-pass-2");
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({ code: "invite_invalid" });
    expect((await phoneSignIn(phone, "another-pass-2")).statusCode).toBe(400);
    expect((await phoneSignIn(phone)).statusCode).toBe(200);

    const late = "+971501234571";
    await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { phone: late, role: "facilitator" },
    });
    const expired = await invitationTo(late);
    await t.app.deps.db
      .updateTable("one_time_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("relates_to", "=", late)
      .execute();
    const tooLate = await join(late, expired.code);
    expect(tooLate.statusCode).toBe(400);
    expect(tooLate.json()).toMatchObject({ code: "invite_invalid" });
    expect((await join(late, "000000")).json()).toMatchObject({ code: "invite_invalid" });
    const user = await t.app.deps.db
      .selectFrom("users")
      .select(["encrypted_password", "phone_confirmed_at"])
      .where("phone", "=", late)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ encrypted_password: null, phone_confirmed_at: null });
  });

  it("inviting someone who already has an account answers a clear 422, never a 500", async () => {
    const existing = await createTestUser(t.app, { email: "rana@example.org" });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { email: "rana@example.org", role: "facilitator" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: "user_already_exists" });
    expect((await team()).some((m) => m.id === existing.id)).toBe(false);
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
    expect(entries.json().entries).toEqual([expect.objectContaining({ action: "team.remove", targetId: fac.id })]);
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
