import { SAVED_REPLY_TEXT_MAX, SAVED_REPLY_TITLE_MAX, type SavedReply } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;
let facilitator: TestUser;
let family: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  facilitator = await createTestUser(t.app, { role: "facilitator" });
  family = await createTestUser(t.app);
});
afterAll(async () => t?.close());

const reply = { title: "Welcome", textEn: "Welcome to Hikaya!", textAr: "أهلًا بك في حكاية!" };

const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, who: TestUser | null, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload === undefined ? {} : { payload }) });

const list = async () => (await call("GET", "/api/admin/replies", facilitator)).json<SavedReply[]>();

describe("saved replies: /api/admin/replies", () => {
  it("an admin saves, changes and deletes one; every operator reads them; the change is audited", async () => {
    const created = await call("POST", "/api/admin/replies", admin, reply);
    expect(created.statusCode, created.body).toBe(200);
    const saved = created.json<SavedReply>();
    expect(saved).toMatchObject(reply);
    expect(await list()).toEqual([saved]);
    expect((await call("GET", "/api/admin/replies", admin)).json()).toEqual([saved]);

    const changed = await call("PUT", `/api/admin/replies/${saved.id}`, admin, { ...reply, textAr: "مرحبًا بك!" });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await list())[0]?.textAr).toBe("مرحبًا بك!");

    expect((await call("DELETE", `/api/admin/replies/${saved.id}`, admin)).statusCode).toBe(200);
    expect(await list()).toEqual([]);
    const actions = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .select("action")
      .where("target_id", "=", saved.id)
      .orderBy("id")
      .execute();
    expect(actions.map((a) => a.action)).toEqual(["reply.create", "reply.update", "reply.delete"]);
  });

  it("a facilitator reads but may not write (403); a family member gets 403 and a visitor 401 everywhere", async () => {
    const saved = (await call("POST", "/api/admin/replies", admin, reply)).json<SavedReply>();
    expect((await call("POST", "/api/admin/replies", facilitator, reply)).statusCode).toBe(403);
    expect((await call("PUT", `/api/admin/replies/${saved.id}`, facilitator, reply)).statusCode).toBe(403);
    expect((await call("DELETE", `/api/admin/replies/${saved.id}`, facilitator)).statusCode).toBe(403);
    for (const [method, url] of [
      ["GET", "/api/admin/replies"],
      ["POST", "/api/admin/replies"],
      ["PUT", `/api/admin/replies/${saved.id}`],
      ["DELETE", `/api/admin/replies/${saved.id}`],
    ] as const) {
      const payload = method === "POST" || method === "PUT" ? reply : undefined;
      expect((await call(method, url, family, payload)).statusCode, `${method} ${url}`).toBe(403);
      expect((await call(method, url, null, payload)).statusCode, `${method} ${url}`).toBe(401);
    }
    expect(await list()).toEqual([saved]);
    await call("DELETE", `/api/admin/replies/${saved.id}`, admin);
  });

  it("refuses a missing or too long field with 400 validation_failed and stores nothing", async () => {
    const bad = [
      { ...reply, title: "" },
      { ...reply, title: "t".repeat(SAVED_REPLY_TITLE_MAX + 1) },
      { ...reply, textEn: "e".repeat(SAVED_REPLY_TEXT_MAX + 1) },
      { ...reply, textAr: "   " },
      { title: reply.title, textEn: reply.textEn },
    ];
    for (const body of bad) {
      const res = await call("POST", "/api/admin/replies", admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(await list()).toEqual([]);
    const saved = (await call("POST", "/api/admin/replies", admin, reply)).json<SavedReply>();
    expect((await call("PUT", `/api/admin/replies/${saved.id}`, admin, { ...reply, textEn: "" })).statusCode).toBe(400);
    expect(await list()).toEqual([saved]);
    // The longest allowed texts are kept whole.
    const long = { title: "t".repeat(SAVED_REPLY_TITLE_MAX), textEn: "e".repeat(SAVED_REPLY_TEXT_MAX), textAr: "ع".repeat(2000) };
    expect((await call("PUT", `/api/admin/replies/${saved.id}`, admin, long)).json()).toMatchObject(long);
    await call("DELETE", `/api/admin/replies/${saved.id}`, admin);
  });

  it("answers 404 for a reply that does not exist", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await call("PUT", `/api/admin/replies/${missing}`, admin, reply)).statusCode).toBe(404);
    expect((await call("DELETE", `/api/admin/replies/${missing}`, admin)).statusCode).toBe(404);
  });
});
