import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { AccountSettings } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { listOutboxMessages } from "../../infrastructure/sms/index.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";
import { mediaWorkerOf } from "../media/worker.ts";
import { multipart, wavBytes } from "../messages/messages.test-helpers.ts";

let t: TestApp;
let app: App;
let anonKey: string;

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  // These tests count the stored files named after a person: the voice copies the media worker writes in the
  // background would land after the count (media.test.ts tests the worker's own clean-up after a deletion).
  await mediaWorkerOf(app)?.stop();
  anonKey = app.deps.auth.keys.anonKey;
});
afterAll(async () => t?.close());

const randomJordanMobile = () => `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
const e164 = (national: string) => `+962${national.slice(1)}`;
/** Western digits as Arabic-Indic (٠-٩), as an Arabic keyboard types them. */
const arabicIndic = (digits: string) => digits.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));

interface Person {
  token: string;
  refreshToken: string;
  userId: string;
  national: string;
  headers: { authorization: string };
}

async function signUp(body: Record<string, unknown> = {}): Promise<Person> {
  const national = randomJordanMobile();
  const res = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "JO", phoneNumber: national, password: "account-pass-1", agreeToReminder: true, ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  const json = res.json() as { token: string; refreshToken: string; user: { id: string } };
  return {
    token: json.token,
    refreshToken: json.refreshToken,
    userId: json.user.id,
    national,
    headers: { authorization: `Bearer ${json.token}` },
  };
}

async function signIn(phone: string, password = "account-pass-1") {
  return app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: anonKey },
    payload: { phone, password },
  });
}

async function latestCodeTo(phone: string): Promise<{ code: string; body: string }> {
  const [message] = await listOutboxMessages(app.deps.db, { limit: 1, recipient: phone });
  const code = message?.body.match(/(\d{6})/)?.[1];
  if (!message || !code) throw new Error(`no code sent to ${phone}`);
  return { code, body: message.body };
}

const settings = async (p: Person) =>
  (await app.inject({ method: "GET", url: "/api/account", headers: p.headers })).json() as AccountSettings;

describe("consent, stored on the server with its time", () => {
  it("keeps the phone sign-up's reminders answer and the language", async () => {
    const p = await signUp({ agreeToReminder: false, language: "en" });
    const s = await settings(p);
    expect(s).toMatchObject({ agreeToReminder: false, whatsappOptIn: null, language: "en", pendingPhone: null });
    expect(s.phone).toEqual({ e164: e164(p.national), countryCode: "+962", phoneNumber: p.national.slice(1) });
    expect(Date.parse(s.agreeToReminderAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  it("keeps the English sign-up's answer sent with the create-user call", async () => {
    const user = await createTestUser(app);
    const res = await app.inject({
      method: "POST",
      url: "/api/users",
      headers: user.headers,
      payload: { id: user.id, name: "sara", agreeToReminder: false, language: "ar" },
    });
    expect(res.statusCode, res.body).toBe(200);
    const s = (await app.inject({ method: "GET", url: "/api/account", headers: user.headers })).json() as AccountSettings;
    expect(s).toMatchObject({ agreeToReminder: false, language: "ar" });
    expect(s.agreeToReminderAt).not.toBeNull();
  });

  it("stores the WhatsApp answer and changed reminders with their times", async () => {
    const p = await signUp();
    const res = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: p.headers,
      payload: { whatsappOptIn: true, agreeToReminder: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ whatsappOptIn: true, agreeToReminder: false });
    expect(res.json().whatsappOptInAt).not.toBeNull();
    const no = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: p.headers,
      payload: { whatsappOptIn: false },
    });
    expect(no.json()).toMatchObject({ whatsappOptIn: false });
  });

  it("refuses unknown fields, and anyone signed out", async () => {
    const p = await signUp();
    const bad = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: p.headers,
      payload: { admin: true },
    });
    expect(bad.statusCode).toBe(400);
    expect((await app.inject({ method: "GET", url: "/api/account" })).statusCode).toBe(401);
  });
});

describe("the viewing mode (issue 38: thin and metered connections)", () => {
  const account = (p: Person, saveData?: string) =>
    app.inject({ url: "/api/account", headers: { ...p.headers, ...(saveData ? { "save-data": saveData } : {}) } });

  it("defaults to saving data when the browser asks to, per request, until the person chooses", async () => {
    const p = await signUp();
    const plain = await account(p);
    expect(plain.json()).toMatchObject({ viewingMode: "best", viewingModeChosen: false });
    expect(plain.headers.vary).toContain("Save-Data");
    const saving = await account(p, "on");
    expect(saving.json()).toMatchObject({ viewingMode: "save_data", viewingModeChosen: false });
    expect(saving.headers.vary).toContain("Save-Data");

    const chosen = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: { ...p.headers, "save-data": "on" },
      payload: { viewingMode: "audio_only" },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.json()).toMatchObject({ viewingMode: "audio_only", viewingModeChosen: true });
    // A choice outranks the header, on every device.
    expect((await account(p, "on")).json()).toMatchObject({ viewingMode: "audio_only" });
    await app.inject({ method: "POST", url: "/api/account/preferences", headers: p.headers, payload: { viewingMode: "best" } });
    expect((await account(p, "on")).json()).toMatchObject({ viewingMode: "best", viewingModeChosen: true });
  });

  it("refuses a mode it does not know, and keeps the one stored", async () => {
    const p = await signUp();
    await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: p.headers,
      payload: { viewingMode: "save_data" },
    });
    const bad = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: p.headers,
      payload: { viewingMode: "ultra" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe("validation_failed");
    expect((await account(p)).json()).toMatchObject({ viewingMode: "save_data", viewingModeChosen: true });
  });
});

describe("changing the login phone", () => {
  it("changes nothing until the code sent to the new number is verified, then only the new number signs in", async () => {
    const p = await signUp({ language: "ar" });
    const next = randomJordanMobile();
    const start = await app.inject({
      method: "POST",
      url: "/api/account/phone",
      headers: p.headers,
      payload: { country: "JO", phoneNumber: arabicIndic(next), channel: "whatsapp" },
    });
    expect(start.statusCode, start.body).toBe(200);
    expect(start.json().pendingPhone).toMatchObject({ e164: e164(next), channel: "whatsapp" });
    const sent = await latestCodeTo(e164(next));
    // The person's language: Arabic text, the code last.
    expect(sent.body).toMatch(/حكاية/);

    // Pending: the old number still signs in, the new one does not.
    expect((await signIn(e164(p.national))).statusCode).toBe(200);
    expect((await signIn(e164(next))).statusCode).toBe(400);

    const wrong = await app.inject({
      method: "POST",
      url: "/api/account/phone/verify",
      headers: p.headers,
      payload: { code: sent.code === "000000" ? "111111" : "000000" },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe("invalid_otp");
    expect((await settings(p)).phone?.e164).toBe(e164(p.national));

    const ok = await app.inject({
      method: "POST",
      url: "/api/account/phone/verify",
      headers: p.headers,
      payload: { code: arabicIndic(sent.code) },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ phone: { e164: e164(next) }, pendingPhone: null });
    expect((await signIn(e164(next))).statusCode).toBe(200);
    expect((await signIn(e164(p.national))).statusCode).toBe(400);

    // Reset codes now go to the new number.
    const forgot = await app.inject({ method: "POST", url: "/api/send-otp", payload: { country: "JO", phoneNumber: next } });
    expect(forgot.json()).toEqual({ user: p.userId });
  });

  it("says so after too many wrong codes, and the code is spent", async () => {
    const p = await signUp();
    const next = randomJordanMobile();
    await app.inject({
      method: "POST",
      url: "/api/account/phone",
      headers: p.headers,
      payload: { country: "JO", phoneNumber: next },
    });
    const { code } = await latestCodeTo(e164(next));
    const wrong = code === "000000" ? "111111" : "000000";
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({
        method: "POST",
        url: "/api/account/phone/verify",
        headers: p.headers,
        payload: { code: wrong },
      });
      codes.push(res.json().code);
    }
    expect(codes.slice(0, 4)).toEqual(["invalid_otp", "invalid_otp", "invalid_otp", "invalid_otp"]);
    expect(codes[4]).toBe("too_many_attempts");
    const late = await app.inject({ method: "POST", url: "/api/account/phone/verify", headers: p.headers, payload: { code } });
    // The right code after that is refused as spent too, so the screen offers a new code.
    expect(late.statusCode).toBe(429);
    expect(late.json().code).toBe("too_many_attempts");
    expect((await settings(p)).phone?.e164).toBe(e164(p.national));
  });

  it("refuses a number of another account, a bad number, and a cancelled change", async () => {
    const p = await signUp();
    const other = await signUp();
    const taken = await app.inject({
      method: "POST",
      url: "/api/account/phone",
      headers: p.headers,
      payload: { country: "JO", phoneNumber: other.national },
    });
    expect(taken.statusCode).toBe(422);
    expect(taken.json().code).toBe("phone_in_use");

    const bad = await app.inject({
      method: "POST",
      url: "/api/account/phone",
      headers: p.headers,
      payload: { country: "JO", phoneNumber: "abc" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "invalid_phone", details: { field: "phoneNumber", reason: "invalid_phone" } });
    expect(bad.json().message).not.toMatch(/E\.164/);

    const next = randomJordanMobile();
    await app.inject({
      method: "POST",
      url: "/api/account/phone",
      headers: p.headers,
      payload: { country: "JO", phoneNumber: next },
    });
    const { code } = await latestCodeTo(e164(next));
    expect(
      (await app.inject({ method: "POST", url: "/api/account/phone/cancel", headers: p.headers })).json().pendingPhone,
    ).toBeNull();
    const after = await app.inject({ method: "POST", url: "/api/account/phone/verify", headers: p.headers, payload: { code } });
    expect(after.statusCode).toBe(400);
    expect(after.json().code).toBe("otp_expired");
  });
});

describe("deleting the account", () => {
  it("needs the password, then deletes the account, its sessions, messages and files, and audits it", async () => {
    const p = await signUp();
    const form = await multipart({ message: "audio", messageType: "audio" }, { bytes: wavBytes(0.5) });
    const note = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...p.headers, ...form.headers },
      payload: form.payload,
    });
    expect(note.statusCode, note.body).toBe(200);
    const audioUrl = note.json().data.message as string;
    const folder = join(t.config.dataDir, "storage", "voice-notes", p.userId);
    expect(readdirSync(folder).length).toBeGreaterThan(0);
    // The voice note's media job names the person's file.
    const jobsOf = () =>
      app.deps.db
        .withTables<{ media_jobs: { object_key: string } }>()
        .selectFrom("media_jobs")
        .select("object_key")
        .where("object_key", "like", `${p.userId}/%`)
        .execute();
    expect(await jobsOf()).toHaveLength(1);

    const missing = await app.inject({ method: "POST", url: "/api/account/delete", headers: p.headers, payload: {} });
    expect(missing.statusCode).toBe(400);
    const wrong = await app.inject({
      method: "POST",
      url: "/api/account/delete",
      headers: p.headers,
      payload: { password: "nope-nope" },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe("incorrect_password");
    expect((await app.inject({ method: "POST", url: "/api/profile", headers: p.headers })).statusCode).toBe(200);

    const ok = await app.inject({
      method: "POST",
      url: "/api/account/delete",
      headers: p.headers,
      payload: { password: "account-pass-1" },
    });
    expect(ok.statusCode, ok.body).toBe(200);

    // A second tab still holding the tokens: refused, clearly.
    expect((await app.inject({ method: "POST", url: "/api/profile", headers: p.headers })).statusCode).toBe(401);
    const refresh = await app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=refresh_token",
      headers: { apikey: anonKey },
      payload: { refresh_token: p.refreshToken },
    });
    expect(refresh.statusCode).toBe(400);
    expect((await signIn(e164(p.national))).statusCode).toBe(400);

    // Nothing left: the rows, the voice note's file, any URL to it.
    const admin = await createTestUser(app, { admin: true });
    expect((await app.inject({ method: "GET", url: audioUrl, headers: admin.headers })).statusCode).toBe(404);
    expect(existsSync(folder) ? readdirSync(folder).filter((f) => !f.endsWith("__type")) : []).toEqual([]);
    const rows = await app.deps.db.selectFrom("messages").select("id").where("user_id", "=", p.userId).execute();
    expect(rows).toEqual([]);
    const profile = await app.deps.db.selectFrom("profiles").select("user_id").where("user_id", "=", p.userId).execute();
    expect(profile).toEqual([]);
    expect(await jobsOf()).toEqual([]);

    const log = await app.inject({ method: "GET", url: "/api/admin/audit?limit=20", headers: admin.headers });
    const entry = (log.json().entries as { action: string; actorId: string; targetId: string | null; details: unknown }[]).find(
      (e) => e.action === "account.delete",
    );
    // The action is kept, not the person.
    expect(entry).toMatchObject({ actorId: "deleted", targetId: null });
    expect(JSON.stringify(entry?.details)).not.toMatch(/account-pass|audio/);
  });

  it("leaves nothing named after the person: watch events, audit rows and storage folders lose them", async () => {
    const p = await signUp();
    const admin = await createTestUser(app, { admin: true });
    const watched = await app.inject({
      method: "POST",
      url: "/api/events",
      payload: { events: [{ name: "video_watched", properties: { videoID: "x", videoOrder: 1 } }], token: p.token },
    });
    expect(watched.statusCode).toBe(202);
    const reset = await app.inject({ method: "POST", url: `/api/admin/users/${p.userId}/reset-code`, headers: admin.headers });
    expect(reset.statusCode, reset.body).toBeLessThan(300);
    const form = await multipart({ message: "audio", messageType: "audio" }, { bytes: wavBytes(0.3) });
    const note = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...p.headers, ...form.headers },
      payload: form.payload,
    });
    expect(note.statusCode, note.body).toBe(200);

    const db = app.deps.db;
    const storage = join(t.config.dataDir, "storage");
    const named = async () => ({
      watchEvents: (await db.selectFrom("analytics_events").select("id").where("user_id", "=", p.userId).execute()).length,
      authAudit: (await db.selectFrom("audit_log").select("id").where("user_id", "=", p.userId).execute()).length,
      adminAudit: (
        await db
          .selectFrom("admin_audit_log")
          .select("id")
          .where((eb) => eb.or([eb("actor_id", "=", p.userId), eb("target_id", "=", p.userId)]))
          .execute()
      ).length,
      paths: readdirSync(storage, { recursive: true }).filter((path) => String(path).includes(p.userId)).length,
    });
    const total = async () => ({
      watchEvents: (await db.selectFrom("analytics_events").select("id").execute()).length,
      authAudit: (await db.selectFrom("audit_log").select("id").execute()).length,
    });
    const before = await named();
    expect(before.watchEvents * before.authAudit * before.adminAudit * before.paths).toBeGreaterThan(0);
    const kept = await total();

    const ok = await app.inject({
      method: "POST",
      url: "/api/account/delete",
      headers: p.headers,
      payload: { password: "account-pass-1" },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await named()).toEqual({ watchEvents: 0, authAudit: 0, adminAudit: 0, paths: 0 });
    // What happened is kept (the watch, the sign-ups and sign-ins, the deletion), only not whose it was.
    const after = await total();
    expect(after.watchEvents).toBe(kept.watchEvents);
    expect(after.authAudit).toBeGreaterThan(kept.authAudit);
  });
});

describe("what people type", () => {
  it("signs up, asks for a reset code and verifies it with Arabic-Indic and Eastern Arabic-Indic digits", async () => {
    const national = randomJordanMobile();
    const up = await app.inject({
      method: "POST",
      url: "/api/sign-up",
      payload: { country: "JO", phoneNumber: arabicIndic(national), password: "digits-pass-1" },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await signIn(e164(national), "digits-pass-1")).statusCode).toBe(200);

    const eastern = national.replace(/\d/g, (d) => String.fromCharCode(0x06f0 + Number(d)));
    const spaced = `${eastern.slice(0, 3)} ${eastern.slice(3, 6)}-${eastern.slice(6)}`;
    const sent = await app.inject({ method: "POST", url: "/api/send-otp", payload: { country: "JO", phoneNumber: spaced } });
    expect(sent.statusCode, sent.body).toBe(200);
    const { code } = await latestCodeTo(e164(national));
    const verified = await app.inject({
      method: "POST",
      url: "/api/verify-otp",
      payload: { otp: arabicIndic(code), user: sent.json().user },
    });
    expect(verified.statusCode, verified.body).toBe(200);
  });

  it("holds usernames to the rule the sign-up screen states", async () => {
    const domain = app.deps.config.usernameEmailDomain;
    const signup = (username: string) =>
      app.inject({
        method: "POST",
        url: "/auth/v1/signup",
        headers: { apikey: anonKey },
        payload: { email: `${username}@${domain}`, password: "username-pass-1" },
      });
    for (const bad of ["ab", "-dash-first", "x".repeat(31), "under_score"]) {
      const res = await signup(bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().error_code).toBe("validation_failed");
      expect(res.json().msg).toMatch(/letters, digits, dots and dashes/);
    }
    expect((await signup(`ok.name-${Date.now()}`)).statusCode).toBe(200);
    // Other e-mail addresses are not usernames and keep Supabase's rules.
    const other = await app.inject({
      method: "POST",
      url: "/auth/v1/signup",
      headers: { apikey: anonKey },
      payload: { email: `first_last${Date.now()}@example.com`, password: "username-pass-1" },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe("too many attempts", () => {
  it("says how long to wait, in Retry-After and in details", async () => {
    const p = await signUp();
    const ask = () => app.inject({ method: "POST", url: "/api/send-otp", payload: { country: "JO", phoneNumber: p.national } });
    let res = await ask();
    for (let i = 0; i < 10 && res.statusCode !== 429; i++) res = await ask();
    expect(res.statusCode).toBe(429);
    const wait = Number(res.headers["retry-after"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(res.json()).toMatchObject({ code: "rate_limited", details: { retryAfterSeconds: wait } });
  });
});
