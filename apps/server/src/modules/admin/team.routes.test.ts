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

async function invitationTo(recipient: string): Promise<{ code: string; body: string }> {
  const [message] = await listOutboxMessages(t.app.deps.db, { limit: 1, recipient });
  const code = message?.body.match(/(\d{6})/)?.[1];
  if (!message || !code) throw new Error(`no invitation sent to ${recipient}`);
  return { code, body: message.body };
}

const joinBy = (payload: Record<string, string>, url = "/api/team/join") => t.app.inject({ method: "POST", url, payload });
const join = (phone: string, code: string, password = PASSWORD) => joinBy({ phone, code, password });

const signInWith = (who: { email: string } | { phone: string }, password = PASSWORD) =>
  t.app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: t.app.deps.auth.keys.anonKey },
    payload: { ...who, password },
  });
const phoneSignIn = (phone: string, password = PASSWORD) => signInWith({ phone }, password);

const sessionsOf = async (userId: string) =>
  (await t.app.deps.db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute()).length;

const team = async (): Promise<TeamMember[]> =>
  (await t.app.inject({ method: "GET", url: "/api/admin/team", headers: admin.headers })).json();

describe("the console team", () => {
  it("invites a facilitator by e-mail: the link opens the console's join page, and they count as joined only after it", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { email: "Layla@Example.org", role: "facilitator" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: "layla@example.org", role: "facilitator", confirmed: false });
    const { code, body } = await invitationTo("layla@example.org");
    // The console's page, never /auth/v1/verify (which lands on the family app and drops the session).
    expect(body).toContain(`/admin/join?email=layla%40example.org&code=${code}`);
    expect(body).not.toContain("/auth/v1/verify");
    expect((await team()).find((m) => m.email === "layla@example.org")).toMatchObject({ role: "facilitator", confirmed: false });

    // A weak password is refused before the code is spent.
    const weak = await joinBy({ email: "layla@example.org", code, password: "123" });
    expect(weak.statusCode).toBe(422);
    const joined = await joinBy({ email: "Layla@Example.org", code, password: PASSWORD });
    expect(joined.statusCode, joined.body).toBe(200);
    const signIn = await signInWith({ email: "layla@example.org" });
    expect(signIn.statusCode, signIn.body).toBe(200);
    expect(signIn.json().user.app_metadata).toMatchObject({ role: "facilitator" });
    expect((await team()).find((m) => m.email === "layla@example.org")).toMatchObject({ confirmed: true });
    const again = await joinBy({ email: "layla@example.org", code, password: "another-pass-2" });
    expect(again.json()).toMatchObject({ code: "invite_invalid" });
  });

  it("a confirmed address without a password is still only invited", async () => {
    const pending = await createTestUser(t.app, { role: "facilitator", email: "pending@example.org" });
    expect((await team()).find((m) => m.id === pending.id)).toMatchObject({ confirmed: false });
  });

  it("reads a local phone number with the country chosen beside it, and refuses one without", async () => {
    const local = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { phone: "0791234567", country: "JO", role: "facilitator" },
    });
    expect(local.statusCode, local.body).toBe(200);
    expect(local.json()).toMatchObject({ phone: "+962791234567", confirmed: false });
    const { code, body } = await invitationTo("+962791234567");
    expect(body).toContain(`/admin/join?phone=%2B962791234567&code=${code}`);

    const bare = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { phone: "0791234568", role: "facilitator" },
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({ code: "invalid_phone" });
    expect((await team()).some((m) => m.phone === "+962791234568")).toBe(false);
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

  it("a family account invited by e-mail becomes an operator: told by e-mail, sessions ended, signs in as before", async () => {
    const family = await createTestUser(t.app, { email: "rana@example.org" });
    await t.app.deps.auth.service.adminUpdateUser(family.id, { password: "family-pass-1" }, { ip: "127.0.0.1", userAgent: null });
    expect(await sessionsOf(family.id)).toBe(1);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { email: "rana@example.org", role: "facilitator" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: family.id, role: "facilitator", confirmed: true });
    const [told] = await listOutboxMessages(t.app.deps.db, { limit: 1, recipient: "rana@example.org" });
    expect(told?.channel).toBe("email");
    expect(told?.body).toContain("/admin/login");
    // Their tokens still said "family member": the role change ends them (commit 18c28c4's rule).
    expect(await sessionsOf(family.id)).toBe(0);
    const signIn = await signInWith({ email: "rana@example.org" }, "family-pass-1");
    expect(signIn.json().user.app_metadata).toMatchObject({ role: "facilitator" });

    // Someone already in the team is refused, never a 500, and keeps their role.
    const twice = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: admin.headers,
      payload: { email: "rana@example.org", role: "admin" },
    });
    expect(twice.statusCode).toBe(422);
    expect(twice.json()).toMatchObject({ code: "user_already_exists" });
    expect((await team()).find((m) => m.id === family.id)).toMatchObject({ role: "facilitator" });
  });

  it("a family account invited by phone (with its country) is told by SMS and keeps its password", async () => {
    const signUp = await t.app.inject({
      method: "POST",
      url: "/api/sign-up",
      payload: { country: "JO", phoneNumber: "0781234567", password: "family-pass-1", agreeToReminder: false },
    });
    expect(signUp.statusCode, signUp.body).toBe(200);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/admin/team",
      headers: { ...admin.headers, "accept-language": "ar" },
      payload: { phone: "078 123 4567", country: "JO", role: "admin" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ phone: "+962781234567", role: "admin", confirmed: true });
    const [told] = await listOutboxMessages(t.app.deps.db, { limit: 1, recipient: "+962781234567" });
    expect(told?.channel).toBe("sms");
    expect(told?.body).toContain("/admin/login");
    const signIn = await phoneSignIn("+962781234567", "family-pass-1");
    expect(signIn.json().user.app_metadata).toMatchObject({ role: "admin" });
  });

  it("an operator's forgotten password: the link opens the console's reset page, which sets a new one and ends sessions", async () => {
    const fac = await createTestUser(t.app, { role: "facilitator", email: "noor@example.org" });
    const asked = await joinBy({ email: "noor@example.org" }, "/api/team/recover");
    expect(asked.statusCode, asked.body).toBe(200);
    const { code, body } = await invitationTo("noor@example.org");
    expect(body).toContain(`/admin/reset-password?email=noor%40example.org&code=${code}`);
    const reset = await joinBy({ email: "noor@example.org", code, password: "new-pass-22" }, "/api/team/reset-password");
    expect(reset.statusCode, reset.body).toBe(200);
    expect(await sessionsOf(fac.id)).toBe(0);
    expect((await signInWith({ email: "noor@example.org" }, "new-pass-22")).statusCode).toBe(200);
    const reused = await joinBy({ email: "noor@example.org", code, password: "other-pass-3" }, "/api/team/reset-password");
    expect(reused.json()).toMatchObject({ code: "otp_expired" });

    // A family account asking the console gets the same answer and no message.
    await createTestUser(t.app, { email: "family-only@example.org" });
    expect((await joinBy({ email: "family-only@example.org" }, "/api/team/recover")).statusCode).toBe(200);
    expect(await listOutboxMessages(t.app.deps.db, { limit: 1, recipient: "family-only@example.org" })).toEqual([]);
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
    // The log names who changed role, not only "a team member".
    const entries = await t.app.inject({ method: "GET", url: "/api/admin/audit?action=team.role", headers: admin.headers });
    const entry = entries.json().entries.find((e: { targetId: string }) => e.targetId === fac.id);
    expect(entry?.details).toMatchObject({ from: "facilitator", to: "admin", member: `${fac.id}@test.hikaya` });
  });

  it("a removed operator's old token is refused and they leave the list", async () => {
    const fac = await createTestUser(t.app, { role: "facilitator" });
    const res = await t.app.inject({ method: "DELETE", url: `/api/admin/team/${fac.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const after = await t.app.inject({ method: "GET", url: "/api/admin/conversations", headers: fac.headers });
    expect(after.statusCode).toBe(401);
    expect((await team()).some((m) => m.id === fac.id)).toBe(false);
    const entries = await t.app.inject({ method: "GET", url: "/api/admin/audit?action=team.remove", headers: admin.headers });
    expect(entries.json().entries).toEqual([
      expect.objectContaining({
        action: "team.remove",
        targetId: fac.id,
        details: { role: "facilitator", member: `${fac.id}@test.hikaya` },
      }),
    ]);
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
