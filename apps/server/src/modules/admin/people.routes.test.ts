import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { AdminUserDetail, AuditEntry, UserList } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { listOutboxMessages } from "../../infrastructure/sms/index.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { mediaWorkerOf } from "../media/worker.ts";
import { multipart, wavBytes } from "../messages/messages.test-helpers.ts";

let t: TestApp;
let app: App;
let anonKey: string;
let admin: TestUser;
let facilitator: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  // The deletion test looks at the person's folder right after the answer: a voice copy the media worker writes in
  // the background would land after that look (media.test.ts tests the worker's clean-up after a deletion).
  await mediaWorkerOf(t.app)?.stop();
  app = t.app;
  anonKey = app.deps.auth.keys.anonKey;
  admin = await createTestUser(app, { admin: true });
  facilitator = await createTestUser(app, { role: "facilitator" });
});
afterAll(async () => t?.close());

const PASSWORD = "people-pass-1";
/** A Saudi mobile in its local form ("05…"), different each call. */
const saudiLocal = () => `050${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
const saudiE164 = (local: string) => `+966${local.slice(1)}`;

interface Person {
  id: string;
  local: string;
  phone: string;
  refreshToken: string;
  headers: { authorization: string };
}

async function signUp(name?: string): Promise<Person> {
  const local = saudiLocal();
  const res = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "SA", phoneNumber: local, password: PASSWORD, agreeToReminder: true, language: "ar" },
  });
  expect(res.statusCode, res.body).toBe(200);
  const json = res.json() as { token: string; refreshToken: string; user: { id: string } };
  const headers = { authorization: `Bearer ${json.token}` };
  if (name) {
    const saved = await app.inject({ method: "POST", url: "/api/users", headers, payload: { id: json.user.id, name } });
    expect(saved.statusCode, saved.body).toBe(200);
  }
  return { id: json.user.id, local, phone: saudiE164(local), refreshToken: json.refreshToken, headers };
}

const signIn = (phone: string, password = PASSWORD) =>
  app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: anonKey },
    payload: { phone, password },
  });

const block = (who: TestUser, id: string, blocked: boolean) =>
  app.inject({ method: "PUT", url: `/api/admin/users/${id}/block`, headers: who.headers, payload: { blocked } });

const detail = async (id: string) =>
  (await app.inject({ method: "GET", url: `/api/admin/users/${id}/detail`, headers: admin.headers })).json() as AdminUserDetail;

const auditOf = async (action: string) =>
  (await app.inject({ method: "GET", url: `/api/admin/audit?action=${action}&limit=50`, headers: admin.headers })).json()
    .entries as AuditEntry[];

describe("blocking a person", () => {
  it("ends every session at once, refuses sign-in and refresh, and unblocking lets them back in", async () => {
    const p = await signUp();
    expect((await app.inject({ method: "GET", url: "/api/account", headers: p.headers })).statusCode).toBe(200);

    const res = await block(admin, p.id, true);
    expect(res.statusCode, res.body).toBe(200);
    // The open app's very next request is refused, and it cannot renew its token or sign in again.
    expect((await app.inject({ method: "GET", url: "/api/account", headers: p.headers })).statusCode).toBe(401);
    const refresh = await app.inject({
      method: "POST",
      url: "/auth/v1/token?grant_type=refresh_token",
      headers: { apikey: anonKey },
      payload: { refresh_token: p.refreshToken },
    });
    expect(refresh.statusCode).toBe(400);
    const refused = await signIn(p.phone);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error_code: "user_banned" });
    expect((await detail(p.id)).account.blocked).toBe(true);
    expect(await auditOf("person.block")).toEqual([expect.objectContaining({ actorId: admin.id, targetId: p.id })]);

    expect((await block(admin, p.id, false)).statusCode).toBe(200);
    expect((await signIn(p.phone)).statusCode).toBe(200);
    expect((await detail(p.id)).account.blocked).toBe(false);
    expect(await auditOf("person.unblock")).toEqual([expect.objectContaining({ targetId: p.id })]);
  });

  it("is for admins only, never on oneself or a team member, and a stranger is not found", async () => {
    const p = await signUp();
    const byFacilitator = await block(facilitator, p.id, true);
    expect(byFacilitator.statusCode).toBe(403);
    expect((await app.inject({ method: "GET", url: "/api/account", headers: p.headers })).statusCode).toBe(200);
    expect((await block(admin, admin.id, true)).statusCode).toBe(400);
    const operator = await block(admin, facilitator.id, true);
    expect(operator.statusCode).toBe(409);
    expect(operator.json()).toMatchObject({ code: "operator_account" });
    expect((await block(admin, "00000000-0000-4000-8000-000000000000", true)).statusCode).toBe(404);
  });
});

describe("deleting a person's account", () => {
  it("takes the same path as their own deletion: rows, sessions and files go at once, audited", async () => {
    const p = await signUp();
    const form = await multipart({ message: "audio", messageType: "audio" }, { bytes: wavBytes(0.5) });
    const note = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...p.headers, ...form.headers },
      payload: form.payload,
    });
    expect(note.statusCode, note.body).toBe(200);
    const folder = join(t.config.dataDir, "storage", "voice-notes", p.id);
    expect(readdirSync(folder).length).toBeGreaterThan(0);

    const byFacilitator = await app.inject({ method: "DELETE", url: `/api/admin/users/${p.id}`, headers: facilitator.headers });
    expect(byFacilitator.statusCode).toBe(403);
    const res = await app.inject({ method: "DELETE", url: `/api/admin/users/${p.id}`, headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);

    // No storage sweep needed: the file is gone when the answer comes.
    expect(existsSync(folder) ? readdirSync(folder).filter((f) => !f.endsWith("__type")) : []).toEqual([]);
    expect((await app.inject({ method: "GET", url: "/api/account", headers: p.headers })).statusCode).toBe(401);
    expect((await signIn(p.phone)).statusCode).toBe(400);
    const rows = await app.deps.db.selectFrom("messages").select("id").where("user_id", "=", p.id).execute();
    expect(rows).toEqual([]);
    expect((await app.inject({ method: "GET", url: `/api/admin/users/${p.id}/detail`, headers: admin.headers })).statusCode).toBe(
      404,
    );
    expect(await auditOf("person.delete")).toEqual([
      // The voice note and its processed copy (modules/media), which holds the same voice.
      expect.objectContaining({ actorId: admin.id, targetId: null, details: { files: 2 } }),
    ]);
  });

  it("through the Supabase-style admin API removes the files at once too", async () => {
    const p = await signUp();
    const form = await multipart({ message: "audio", messageType: "audio" }, { bytes: wavBytes(0.3) });
    const note = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...p.headers, ...form.headers },
      payload: form.payload,
    });
    expect(note.statusCode, note.body).toBe(200);
    const folder = join(t.config.dataDir, "storage", "voice-notes", p.id);
    expect(readdirSync(folder).length).toBeGreaterThan(0);
    const res = await app.inject({
      method: "DELETE",
      url: `/auth/v1/admin/users/${p.id}`,
      headers: { apikey: anonKey, authorization: `Bearer ${app.deps.auth.keys.serviceRoleKey}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(existsSync(folder) ? readdirSync(folder).filter((f) => !f.endsWith("__type")) : []).toEqual([]);
    expect(await auditOf("person.delete")).toContainEqual(
      expect.objectContaining({ actorId: "service_role", targetId: null, details: { files: 2 } }),
    );
  });
});

describe("sending a password-reset code", () => {
  it("sends the person's own reset code and link in their language; the code resets through the usual screens", async () => {
    const p = await signUp();
    const res = await app.inject({ method: "POST", url: `/api/admin/users/${p.id}/reset-code`, headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    const [message] = await listOutboxMessages(app.deps.db, { limit: 1, recipient: p.phone });
    expect(message?.body).toContain("إعادة تعيين كلمة المرور");
    expect(message?.body).toContain(`/send-otp/${p.id}`);
    const code = message?.body.match(/(\d{6})/)?.[1] ?? "";
    const verified = await app.inject({ method: "POST", url: "/api/verify-otp", payload: { otp: code, user: p.id } });
    expect(verified.statusCode, verified.body).toBe(200);
    const reset = await app.inject({
      method: "POST",
      url: "/api/reset-password",
      payload: { token: verified.json().token, password: "new-people-pass", confirmPassword: "new-people-pass" },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await signIn(p.phone, "new-people-pass")).statusCode).toBe(200);
    expect(await auditOf("person.reset_code")).toEqual([expect.objectContaining({ targetId: p.id })]);
  });

  it("says clearly when the person has no phone to send it to, and facilitators cannot send one", async () => {
    const noPhone = await createTestUser(app);
    const res = await app.inject({ method: "POST", url: `/api/admin/users/${noPhone.id}/reset-code`, headers: admin.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: "no_phone_number" });
    const p = await signUp();
    const byFacilitator = await app.inject({
      method: "POST",
      url: `/api/admin/users/${p.id}/reset-code`,
      headers: facilitator.headers,
    });
    expect(byFacilitator.statusCode).toBe(403);
    expect(await listOutboxMessages(app.deps.db, { limit: 5, recipient: p.phone })).toEqual([]);
  });
});

describe("the people list", () => {
  const search = async (q: string, who: TestUser = admin) =>
    app.inject({ method: "GET", url: `/api/users?q=${encodeURIComponent(q)}`, headers: who.headers });
  const ids = async (q: string) => ((await search(q)).json() as UserList).items.map((u) => u.id);

  it("finds a person by phone in local, international (with or without + or 00, spaced) and Arabic-Indic form, and by name", async () => {
    const p = await signUp("Hind Al-Qahtani");
    const spaced = `+966 ${p.local.slice(1, 3)} ${p.local.slice(3, 6)} ${p.local.slice(6)}`;
    const arabic = p.local.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
    for (const q of [p.local, p.phone, p.phone.slice(1), `00${p.phone.slice(1)}`, spaced, arabic, "hind al-q"]) {
      expect(await ids(q), q).toContain(p.id);
    }
    const list = (await search(p.local, facilitator)).json() as UserList;
    expect(list.items.find((u) => u.id === p.id)).toMatchObject({ internationalPhone: p.phone, blocked: false });
  });

  it("takes LIKE wildcards literally and refuses a search over 200 characters with its own code", async () => {
    const percent = await signUp("100% Nour");
    const plain = await signUp("Nour Plain");
    expect(await ids("%")).toEqual([percent.id]);
    expect(await ids("0% n")).toEqual([percent.id]);
    expect(await ids("_our")).toEqual([]);
    expect(await ids("nour")).toEqual(expect.arrayContaining([percent.id, plain.id]));
    expect((await search("x".repeat(200))).statusCode).toBe(200);
    for (const length of [201, 10_000]) {
      const res = await search("x".repeat(length));
      expect(res.statusCode, `${length}`).toBe(400);
      expect(res.json()).toMatchObject({ code: "search_too_long" });
    }
  });

  it("lets a facilitator read a person's summary for the people page", async () => {
    const p = await signUp();
    const res = await app.inject({ method: "GET", url: `/api/users/${p.id}`, headers: facilitator.headers });
    expect(res.statusCode).toBe(200);
    const other = await signUp();
    expect((await app.inject({ method: "GET", url: `/api/users/${other.id}`, headers: p.headers })).statusCode).toBe(403);
  });
});
