import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { enrollFactor, passFactor, signInAgain, totpCode } from "../../test/test-factors.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

// Issue 37, one MFA rule: an operator whose account has a verified authenticator factor works in the console at aal2
// only (the session's level read live); an operator without a factor is unaffected.

let t: TestApp;
let family: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  family = await createTestUser(t.app);
});
afterAll(() => t?.close());

const refusal = {
  code: "mfa_required",
  message: "Verify with your authenticator app first",
  details: { reason: "insufficient_aal" },
};

/** The console's calls, one per area: SMS outbox, team, keepsakes, people (list, page, block), the key. */
const consoleCalls = () => [
  { method: "GET" as const, url: "/api/admin/sms-outbox" },
  { method: "GET" as const, url: "/api/admin/team" },
  { method: "GET" as const, url: `/api/keepsake/people/${family.id}` },
  { method: "GET" as const, url: "/api/users" },
  { method: "GET" as const, url: `/api/admin/users/${family.id}/detail` },
  { method: "GET" as const, url: "/api/admin/conversations" },
  { method: "GET" as const, url: "/api/admin/audit" },
];
const statusesOf = async (headers: Record<string, string>) => {
  const answers = await Promise.all(consoleCalls().map((c) => t.app.inject({ ...c, headers })));
  return answers.map((a) => a.statusCode);
};

/** An operator with a verified factor: their enrolling session is at aal2, a second sign-in (password alone) at aal1. */
async function adminWithFactor(role: "admin" | "facilitator" = "admin") {
  const operator = await createTestUser(t.app, { role });
  const enrolled = await enrollFactor(t.app, operator.token);
  return { operator, factor: enrolled.factor, aal2: enrolled.headers, aal1: await signInAgain(t.app, operator.id) };
}

describe("an operator with a verified factor", () => {
  it("is refused every console route at aal1 with mfa_required, before the route runs", async () => {
    const { aal1 } = await adminWithFactor();
    for (const call of consoleCalls()) {
      const res = await t.app.inject({ ...call, headers: aal1 });
      expect(res.statusCode, call.url).toBe(403);
      expect(res.json(), call.url).toEqual(refusal);
    }
    const block = await t.app.inject({
      method: "PUT",
      url: `/api/admin/users/${family.id}/block`,
      headers: aal1,
      payload: { blocked: true },
    });
    expect(block.json()).toEqual(refusal);
    const key = await t.app.inject({ method: "POST", url: "/api/admin/service-role-key", headers: aal1 });
    expect(key.json()).toEqual(refusal);
    // Nothing happened: the family is not blocked.
    const user = await t.app.deps.db.selectFrom("users").select("banned_until").where("id", "=", family.id).executeTakeFirst();
    expect(user?.banned_until).toBeNull();
  });

  it("works at aal2, and the aal1 session passes the factor to get there", async () => {
    const { aal1, aal2, factor } = await adminWithFactor();
    expect(await statusesOf(aal2)).toEqual(consoleCalls().map(() => 200));
    const passed = await passFactor(t.app, aal1.authorization.slice(7), factor, 1);
    expect(await statusesOf(passed.headers)).toEqual(consoleCalls().map(() => 200));
  });

  it("a facilitator too, on the routes their role allows", async () => {
    const { aal1, aal2 } = await adminWithFactor("facilitator");
    for (const url of ["/api/admin/conversations", `/api/admin/users/${family.id}/detail`, "/api/users"]) {
      expect((await t.app.inject({ url, headers: aal1 })).json(), url).toEqual(refusal);
      expect((await t.app.inject({ url, headers: aal2 })).statusCode, url).toBe(200);
    }
  });

  it("the admin API refuses their aal1 token as GoTrue words it", async () => {
    const { aal1, aal2 } = await adminWithFactor();
    const list = (headers: Record<string, string>) =>
      t.app.inject({ url: "/auth/v1/admin/users", headers: { apikey: t.app.deps.auth.keys.anonKey, ...headers } });
    const refused = await list(aal1);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error_code: "insufficient_aal" });
    expect((await list(aal2)).statusCode).toBe(200);
  });

  it("is read live: a session whose factor is removed drops to aal1 while another factor remains", async () => {
    const { operator, aal1, aal2, factor } = await adminWithFactor();
    // A backup factor, enrolled by the aal2 session and verified by the aal1 one (which that raises to aal2).
    const backup = await t.app.inject({
      method: "POST",
      url: "/auth/v1/factors",
      headers: { apikey: t.app.deps.auth.keys.anonKey, ...aal2 },
      payload: { factor_type: "totp", friendly_name: "backup" },
    });
    expect(backup.statusCode, backup.body).toBe(200);
    const other = await passFactor(t.app, aal1.authorization.slice(7), {
      id: backup.json().id,
      secret: backup.json().totp.secret,
    });
    expect(await statusesOf(aal2)).toEqual(consoleCalls().map(() => 200));
    const key = t.app.deps.auth.keys.serviceRoleKey;
    const removed = await t.app.inject({
      method: "DELETE",
      url: `/auth/v1/admin/users/${operator.id}/factors/${factor.id}`,
      headers: { apikey: key, authorization: `Bearer ${key}` },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    // The first session's token still claims aal2, but the session passed the removed factor: it is at aal1 now.
    const claims = JSON.parse(Buffer.from(aal2.authorization.split(".")[1] ?? "", "base64url").toString());
    expect(claims.aal).toBe("aal2");
    const refused = await t.app.inject({ url: "/api/admin/team", headers: aal2 });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(refusal);
    expect(await statusesOf(other.headers)).toEqual(consoleCalls().map(() => 200));
  });
});

describe("an operator without a factor", () => {
  it("works at aal1 as before", async () => {
    const admin = await createTestUser(t.app, { admin: true });
    expect(await statusesOf(admin.headers)).toEqual(consoleCalls().map(() => 200));
    const facilitator = await createTestUser(t.app, { role: "facilitator" });
    expect((await t.app.inject({ url: "/api/admin/conversations", headers: facilitator.headers })).statusCode).toBe(200);
  });

  it("a family member's own calls never ask for a factor", async () => {
    const person = await createTestUser(t.app);
    await enrollFactor(t.app, person.token);
    const res = await t.app.inject({ url: `/api/users/${person.id}`, headers: await signInAgain(t.app, person.id) });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe("an operator's forgotten password, with a verified factor", () => {
  it("sets no password from the e-mailed code alone: the authenticator's code comes with it", async () => {
    const email = `mfa-${Date.now().toString(36)}@operators.test`;
    const operator = await createTestUser(t.app, { role: "facilitator", email });
    const { factor } = await enrollFactor(t.app, operator.token);
    const post = (url: string, payload: Record<string, string>) => t.app.inject({ method: "POST", url, payload });
    expect((await post("/api/team/recover", { email })).statusCode).toBe(200);
    const sent = await t.app.deps.db
      .selectFrom("sms_outbox")
      .select("body")
      .where("recipient", "=", email)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
    const code = /code=(\d{6})/.exec(sent?.body ?? "")?.[1] as string;
    expect(code).toMatch(/^\d{6}$/);
    const reset = (extra: Record<string, string> = {}) =>
      post("/api/team/reset-password", { email, code, password: "new-pass-22", ...extra });

    const alone = await reset();
    expect(alone.statusCode).toBe(403);
    expect(alone.json()).toMatchObject({ code: "mfa_required" });
    const right = totpCode(factor.secret, 1);
    const wrong = await reset({ authenticatorCode: right === "000000" ? "111111" : "000000" });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: "mfa_invalid_code" });
    // The refusals spent neither the e-mailed code nor anything else: the password is unchanged until the right code.
    const user = () =>
      t.app.deps.db.selectFrom("users").select("encrypted_password").where("id", "=", operator.id).executeTakeFirst();
    expect((await user())?.encrypted_password).toBeNull();
    const done = await reset({ authenticatorCode: right });
    expect(done.statusCode, done.body).toBe(200);
    expect((await user())?.encrypted_password).not.toBeNull();
    // The e-mailed code is spent now.
    expect((await reset({ authenticatorCode: right })).json()).toMatchObject({ code: "otp_expired" });
  });
});
