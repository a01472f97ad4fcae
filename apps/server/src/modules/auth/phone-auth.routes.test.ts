import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";

// The phone-number account API (spec section 7) on the same users and sessions as /auth/v1.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000" });
});
afterAll(() => t.close());

let n = 0;
const national = () => `79${String(1_000_000 + ((Date.now() + ++n * 7919) % 8_999_999)).slice(0, 7)}`;
const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, payload: payload as object, headers });
const lastCode = async (recipient: string) => {
  const row = await t.app.deps.db
    .selectFrom("sms_outbox")
    .select("body")
    .where("recipient", "=", recipient)
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  return /\b(\d{6})\b/.exec(row?.body ?? "")?.[1] ?? "";
};

describe("POST /api/sign-up", () => {
  test("creates the account and its profile, and returns an access token /auth/v1 accepts", async () => {
    const phoneNumber = national();
    const res = await post("/api/sign-up", {
      country: "+962",
      phoneNumber: `0${phoneNumber}`,
      password: "secret123",
      agreeToReminder: false,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({ phoneNumber, countryCode: "+962", name: null, fromLandingPage: false });
    const profile = await t.app.deps.db.selectFrom("profiles").selectAll().where("user_id", "=", body.user.id).executeTakeFirst();
    expect(profile).toMatchObject({ phone_number: phoneNumber, country_code: "+962", agree_to_reminder: 0 });
    const me = await t.app.inject({
      method: "GET",
      url: "/auth/v1/user",
      headers: { apikey: t.app.deps.auth.keys.anonKey, authorization: `Bearer ${body.token}` },
    });
    expect(me.json()).toMatchObject({ id: body.user.id, phone: `962${phoneNumber}` });
    // The same person signs in on the Supabase-style endpoint with the phone.
    const signIn = await t.app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=password",
      headers: { apikey: t.app.deps.auth.keys.anonKey },
      payload: { phone: `+962${phoneNumber}`, password: "secret123" },
    });
    expect(signIn.statusCode).toBe(200);
  });

  test("accepts an ISO country code too", async () => {
    const res = await post("/api/sign-up", {
      country: "JO",
      phoneNumber: national(),
      password: "secret123",
      agreeToReminder: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.countryCode).toBe("+962");
  });

  test("the spec's four messages come with stable codes", async () => {
    const phoneNumber = national();
    await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true });
    const dup = await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true });
    expect(dup.statusCode).toBe(422);
    expect(dup.json()).toEqual({ code: "user_already_exists", message: "User already registered" });
    const weak = await post("/api/sign-up", { country: "+962", phoneNumber: national(), password: "123", agreeToReminder: true });
    expect(weak.json()).toEqual({ code: "weak_password", message: "Password should be at least 6 characters." });
    const bad = await post("/api/sign-up", { country: "+962", phoneNumber: "12", password: "secret123", agreeToReminder: true });
    expect(bad.json()).toEqual({ code: "invalid_phone", message: "Invalid phone number format (E.164 required)" });
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=password",
      headers: { apikey: t.app.deps.auth.keys.anonKey },
      payload: { phone: `+962${phoneNumber}`, password: "wrong-pass" },
    });
    expect(login.json()).toMatchObject({ error_code: "invalid_credentials", msg: "Invalid login credentials" });
  });
});

describe("forgot password: send-otp → verify-otp → reset-password", () => {
  test("after five wrong codes even the right one is refused as spent, and a new code works", async () => {
    const phoneNumber = national();
    const signup = (
      await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true })
    ).json();
    await post("/api/send-otp", { country: "+962", phoneNumber });
    const otp = await lastCode(`+962${phoneNumber}`);
    const wrong = otp === "000000" ? "111111" : "000000";
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) codes.push((await post("/api/verify-otp", { otp: wrong, user: signup.user.id })).json().code);
    expect(codes).toEqual(["invalid_otp", "invalid_otp", "invalid_otp", "invalid_otp", "too_many_attempts"]);
    // The right code now says the code is used up, not that it is wrong.
    const right = await post("/api/verify-otp", { otp, user: signup.user.id });
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe("too_many_attempts");
    await post("/api/send-otp", { country: "+962", phoneNumber });
    const fresh = await lastCode(`+962${phoneNumber}`);
    expect((await post("/api/verify-otp", { otp: fresh, user: signup.user.id })).statusCode).toBe(200);
  });

  test("the whole flow, with single-use codes and tokens", async () => {
    const phoneNumber = national();
    const signup = (
      await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true })
    ).json();
    const sent = await post("/api/send-otp", { country: "+962", phoneNumber });
    expect(sent.json()).toEqual({ user: signup.user.id });
    const otp = await lastCode(`+962${phoneNumber}`);
    expect(otp).toMatch(/^\d{6}$/);

    const wrong = await post("/api/verify-otp", { otp: otp === "000000" ? "111111" : "000000", user: signup.user.id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe("invalid_otp");
    const verified = await post("/api/verify-otp", { otp, user: signup.user.id });
    expect(verified.statusCode).toBe(200);
    const { token } = verified.json();
    expect((await post("/api/verify-otp", { otp, user: signup.user.id })).statusCode).toBe(400);

    const mismatch = await post("/api/reset-password", {
      password: "new-pass-1",
      confirmPassword: "new-pass-2",
      token,
      country: "+962",
    });
    expect(mismatch.json()).toEqual({ code: "passwords_do_not_match", message: "Confirm password does not match New password" });
    const reset = await post("/api/reset-password", {
      password: "new-pass-1",
      confirmPassword: "new-pass-1",
      token,
      country: "+962",
    });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ message: "Password reset successfully" });
    const again = await post("/api/reset-password", {
      password: "new-pass-3",
      confirmPassword: "new-pass-3",
      token,
      country: "+962",
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe("otp_expired");

    // Old sessions ended; the new password works.
    const old = await post(
      "/api/change-password",
      { oldPassword: "secret123", newPassword: "whatever1" },
      { authorization: `Bearer ${signup.token}` },
    );
    expect(old.statusCode).toBe(401);
    const signIn = await t.app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=password",
      headers: { apikey: t.app.deps.auth.keys.anonKey },
      payload: { phone: `+962${phoneNumber}`, password: "new-pass-1" },
    });
    expect(signIn.statusCode).toBe(200);
  });

  test("an unknown phone gets the same answer (a stable decoy id) and no message", async () => {
    const phoneNumber = national();
    const a = await post("/api/send-otp", { country: "+962", phoneNumber });
    const b = await post("/api/send-otp", { country: "+962", phoneNumber });
    expect(a.statusCode).toBe(200);
    expect(a.json().user).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.json().user).toBe(a.json().user);
    expect(await lastCode(`+962${phoneNumber}`)).toBe("");
    expect((await post("/api/verify-otp", { otp: "123456", user: a.json().user })).json().code).toBe("invalid_otp");
  });
});

describe("POST /api/change-password", () => {
  test("needs the old password; other sessions end, this one stays", async () => {
    const phoneNumber = national();
    const signup = (
      await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true })
    ).json();
    const headers = { authorization: `Bearer ${signup.token}` };
    const wrong = await post("/api/change-password", { oldPassword: "nope-nope", newPassword: "brand-new-1" }, headers);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe("incorrect_password");
    const weak = await post("/api/change-password", { oldPassword: "secret123", newPassword: "1" }, headers);
    expect(weak.json().code).toBe("weak_password");
    const ok = await post("/api/change-password", { oldPassword: "secret123", newPassword: "brand-new-1" }, headers);
    expect(ok.json()).toEqual({ message: "Password change successfully" });
    const noToken = await post("/api/change-password", { oldPassword: "brand-new-1", newPassword: "brand-new-2" });
    expect(noToken.statusCode).toBe(401);
  });
});

describe("POST /api/users", () => {
  test("stores the caller's details (English sign-up: the username as name)", async () => {
    const me = await createTestUser(t.app);
    const res = await post(
      "/api/users",
      { id: me.id, phoneNumber: "791234567", countryCode: "JO", name: "lina", fromLandingPage: true },
      me.headers,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: me.id, phoneNumber: "791234567", countryCode: "+962", name: "lina", fromLandingPage: true });
    const update = await post("/api/users", { id: me.id, name: "Lina H." }, me.headers);
    expect(update.json()).toMatchObject({ name: "Lina H.", phoneNumber: "791234567" });
    expect((await post("/api/users", { id: me.id })).statusCode).toBe(401);
  });

  test("holds a phone number to sign-up's rule: refused when invalid, read in Arabic-Indic digits, nothing half-stored", async () => {
    const me = await createTestUser(t.app);
    await post("/api/users", { id: me.id, phoneNumber: "791234567", countryCode: "JO" }, me.headers);
    for (const body of [
      { id: me.id, phoneNumber: "abc" },
      { id: me.id, phoneNumber: "12", countryCode: "JO", name: "changed" },
      { id: me.id, phoneNumber: "791234567", countryCode: "US" },
    ]) {
      const refused = await post("/api/users", body, me.headers);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: "invalid_phone", details: { field: "phoneNumber" } });
    }
    // A person with no country yet must name one with the number.
    const newcomer = await createTestUser(t.app);
    expect((await post("/api/users", { id: newcomer.id, phoneNumber: "791234567" }, newcomer.headers)).statusCode).toBe(400);
    const arabicDigits = await post("/api/users", { id: me.id, phoneNumber: "٠٧٩١٢٣٤٥٦٨" }, me.headers);
    expect(arabicDigits.statusCode).toBe(200);
    expect(arabicDigits.json()).toMatchObject({ phoneNumber: "791234568", countryCode: "+962", name: null });
  });
});

describe("GET /api/admin/sms-outbox", () => {
  test("admins read the outbox, newest first; others may not", async () => {
    const [admin, person] = await Promise.all([createTestUser(t.app, { admin: true }), createTestUser(t.app)]);
    const phoneNumber = national();
    await post("/api/sign-up", { country: "+962", phoneNumber, password: "secret123", agreeToReminder: true });
    await post("/api/send-otp", { country: "+962", phoneNumber });
    await post("/api/send-otp", { country: "+962", phoneNumber });
    const res = await t.app.inject({
      method: "GET",
      url: `/api/admin/sms-outbox?recipient=%2B962${phoneNumber}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(200);
    const { messages } = res.json();
    expect(messages).toHaveLength(2);
    expect(messages[0].createdAt >= messages[1].createdAt).toBe(true);
    expect(messages[0]).toMatchObject({ channel: "sms", provider: "outbox", status: "stored", purpose: "recovery" });
    expect((await t.app.inject({ method: "GET", url: "/api/admin/sms-outbox", headers: person.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ method: "GET", url: "/api/admin/sms-outbox" })).statusCode).toBe(401);
  });
});

describe("Twilio-style provider (against a local fake)", () => {
  test("SMS and WhatsApp go to the provider; the outbox logs them with the code masked", async () => {
    const received: { url: string; auth: string; form: URLSearchParams }[] = [];
    let fail = false;
    const fake = createServer(async (req: IncomingMessage, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      received.push({ url: req.url ?? "", auth: req.headers.authorization ?? "", form: new URLSearchParams(text) });
      res.writeHead(fail ? 400 : 201, { "content-type": "application/json" });
      res.end(JSON.stringify(fail ? { message: "The 'To' number is not valid" } : { sid: `SM${received.length}` }));
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
    const port = (fake.address() as AddressInfo).port;
    const app = await createTestApp({
      AUTH_RATE_LIMIT_FACTOR: "1000",
      SMS_PROVIDER: "twilio",
      TWILIO_ACCOUNT_SID: "AC123",
      TWILIO_AUTH_TOKEN: "secret-token",
      TWILIO_FROM: "+15005550006",
      TWILIO_WHATSAPP_FROM: "+14155238886",
      TWILIO_BASE_URL: `http://127.0.0.1:${port}`,
    });
    try {
      const anon = app.app.deps.auth.keys.anonKey;
      const phone = `+962${national()}`;
      const sms = await app.app.inject({ method: "POST", url: "/auth/v1/otp", headers: { apikey: anon }, payload: { phone } });
      expect(sms.statusCode).toBe(200);
      const wa = await app.app.inject({
        method: "POST",
        url: "/auth/v1/otp",
        headers: { apikey: anon },
        payload: { phone, channel: "whatsapp" },
      });
      expect(wa.statusCode).toBe(200);
      expect(received).toHaveLength(2);
      expect(received[0]?.url).toBe("/2010-04-01/Accounts/AC123/Messages.json");
      expect(received[0]?.auth).toBe(`Basic ${Buffer.from("AC123:secret-token").toString("base64")}`);
      expect(received[0]?.form.get("To")).toBe(phone);
      expect(received[0]?.form.get("From")).toBe("+15005550006");
      expect(received[0]?.form.get("Body")).toMatch(/\d{6}/);
      expect(received[1]?.form.get("To")).toBe(`whatsapp:${phone}`);
      expect(received[1]?.form.get("From")).toBe("whatsapp:+14155238886");
      const logged = await app.app.deps.db.selectFrom("sms_outbox").selectAll().where("recipient", "=", phone).execute();
      expect(logged.map((r) => r.status)).toEqual(["sent", "sent"]);
      expect(logged.every((r) => !/\d{6}/.test(r.body))).toBe(true);
      // The code in the message verifies.
      const code = /(\d{6})/.exec(received[1]?.form.get("Body") ?? "")?.[1];
      const verified = await app.app.inject({
        method: "POST",
        url: "/auth/v1/verify",
        headers: { apikey: anon },
        payload: { phone, token: code, type: "sms" },
      });
      expect(verified.statusCode).toBe(200);

      fail = true;
      const failed = await app.app.inject({ method: "POST", url: "/auth/v1/otp", headers: { apikey: anon }, payload: { phone } });
      expect(failed.statusCode).toBe(500);
      expect(failed.json()).toMatchObject({ error_code: "sms_send_failed" });
    } finally {
      await app.close();
      fake.close();
    }
  });
});

describe("ADMIN_EMAIL / ADMIN_PASSWORD", () => {
  test("creates the admin at start-up, idempotently, and updates the password", async () => {
    const env = { AUTH_RATE_LIMIT_FACTOR: "1000", ADMIN_EMAIL: "Boss@Hikaya.test", ADMIN_PASSWORD: "admin-pass-1" };
    const app = await createTestApp(env);
    try {
      const service = app.app.deps.auth.service;
      // Two replicas starting together, and a restart with a new password.
      await Promise.all([
        service.ensureAdmin({ email: "boss@hikaya.test", password: "admin-pass-1" }),
        service.ensureAdmin({ email: "boss@hikaya.test", password: "admin-pass-1" }),
      ]);
      await service.ensureAdmin({ email: "boss@hikaya.test", password: "admin-pass-2" });
      const rows = await app.app.deps.db.selectFrom("users").selectAll().where("email", "=", "boss@hikaya.test").execute();
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0]?.app_metadata ?? "{}")).toMatchObject({ role: "admin" });
      const signIn = await app.app.inject({
        method: "POST",
        url: "/auth/v1/token?grant_type=password",
        headers: { apikey: app.app.deps.auth.keys.anonKey },
        payload: { email: "boss@hikaya.test", password: "admin-pass-2" },
      });
      expect(signIn.statusCode).toBe(200);
      const token = signIn.json().access_token;
      const outbox = await app.app.inject({
        method: "GET",
        url: "/api/admin/sms-outbox",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(outbox.statusCode).toBe(200);
      // The console may use the admin's own token on /auth/v1/admin.
      const users = await app.app.inject({
        method: "GET",
        url: "/auth/v1/admin/users",
        headers: { apikey: app.app.deps.auth.keys.anonKey, authorization: `Bearer ${token}` },
      });
      expect(users.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
