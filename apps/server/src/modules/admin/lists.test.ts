import type { AuditPage, ContactPage, OutboxList } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordOutboxMessage } from "../../infrastructure/sms/sms-provider.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  await t.app.deps.db
    .insertInto("profiles")
    .values({
      user_id: admin.id,
      name: "Amal Operator",
      phone_number: null,
      country_code: null,
      city: null,
      gender: null,
      age_group: null,
      from_landing_page: 0,
      agree_to_reminder: 0,
      agree_to_reminder_at: null,
      whatsapp_opt_in: null,
      whatsapp_opt_in_at: null,
      language: null,
      reminders_stopped_via: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    })
    .execute();
});
afterAll(async () => t?.close());

const get = (url: string) => t.app.inject({ method: "GET", url, headers: admin.headers });

/** Every page of a list, following nextCursor; fails if the pages ever repeat or skip. */
async function walk<T>(base: string, itemsOf: (body: never) => T[], cursor?: string): Promise<T[]> {
  const all: T[] = [];
  let url: string | null = cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base;
  while (url) {
    const res = await get(url);
    expect(res.statusCode, url).toBe(200);
    const body = res.json();
    all.push(...itemsOf(body as never));
    url = body.nextCursor ? `${base}&cursor=${encodeURIComponent(body.nextCursor)}` : null;
  }
  return all;
}

describe("audit log", () => {
  it("pages through every entry newest first, each once, however many are written meanwhile", async () => {
    for (let i = 0; i < 7; i++)
      await t.app.inject({
        method: "POST",
        url: "/api/admin/characters",
        headers: admin.headers,
        payload: { nameEn: `Paged ${i}`, nameAr: `صفحة ${i}` },
      });
    const first = (await get("/api/admin/audit?limit=3")).json() as AuditPage;
    expect(first.entries).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    // A change made while the operator reads page one must not shift page two.
    await t.app.inject({
      method: "POST",
      url: "/api/admin/characters",
      headers: admin.headers,
      payload: { nameEn: "Late", nameAr: "متأخر" },
    });
    const rest = await walk("/api/admin/audit?limit=3", (b: AuditPage) => b.entries.map((e) => e.id), first.nextCursor ?? "");
    const ids = [...first.entries.map((e) => e.id), ...rest];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(ids).toHaveLength(7);
  });

  it("names the actor and what the target is called now, for the console's sentences", async () => {
    const [entry] = ((await get("/api/admin/audit?limit=1&action=character.create")).json() as AuditPage).entries;
    expect(entry).toMatchObject({ actorName: "Amal Operator", targetNameEn: "Late", targetNameAr: "متأخر" });
  });

  it("names a person by their profile name when the target is an account", async () => {
    await t.app.deps.db
      .insertInto("admin_audit_log")
      .values({
        actor_id: admin.id,
        actor_email: null,
        action: "person.block",
        target_type: "user",
        target_id: admin.id,
        details: "{}",
        created_at: new Date().toISOString(),
      })
      .execute();
    const [entry] = ((await get("/api/admin/audit?limit=1&action=person.")).json() as AuditPage).entries;
    expect(entry).toMatchObject({ action: "person.block", targetNameEn: "Amal Operator", targetNameAr: "Amal Operator" });
    // A conversation is named by the person it is with.
    await t.app.deps.db
      .insertInto("admin_audit_log")
      .values({
        actor_id: admin.id,
        actor_email: null,
        action: "conversation.assign",
        target_type: "conversation",
        target_id: admin.id,
        details: "{}",
        created_at: new Date().toISOString(),
      })
      .execute();
    const [assigned] = ((await get("/api/admin/audit?limit=1&action=conversation.")).json() as AuditPage).entries;
    expect(assigned).toMatchObject({ targetNameEn: "Amal Operator" });
  });

  it("finds entries by the actor's name, the target's name and the details; area filters treat _ literally", async () => {
    const byActor = (await get("/api/admin/audit?q=amal%20oper")).json() as AuditPage;
    expect(byActor.entries.length).toBeGreaterThanOrEqual(10);
    const byTarget = (await get(`/api/admin/audit?q=${encodeURIComponent("صفحة 3")}`)).json() as AuditPage;
    expect(byTarget.entries.map((e) => e.targetNameEn)).toEqual(["Paged 3"]);
    const none = (await get("/api/admin/audit?q=nothing-like-this")).json() as AuditPage;
    expect(none).toEqual({ entries: [], nextCursor: null });
    // "landing_answer." must not match "landingXanswer."-like actions through `_`.
    await t.app.deps.db
      .insertInto("admin_audit_log")
      .values({
        actor_id: admin.id,
        actor_email: null,
        action: "landingXanswer.create",
        target_type: "x",
        target_id: null,
        details: "{}",
        created_at: new Date().toISOString(),
      })
      .execute();
    const area = (await get("/api/admin/audit?action=landing_answer.")).json() as AuditPage;
    expect(area.entries).toEqual([]);
  });

  it("a search's % and _ match themselves, not anything", async () => {
    await t.app.inject({
      method: "POST",
      url: "/api/admin/characters",
      headers: admin.headers,
      payload: { nameEn: "100% sure_thing", nameAr: "متأكد" },
    });
    const percent = (await get(`/api/admin/audit?q=${encodeURIComponent("0% s")}`)).json() as AuditPage;
    expect(percent.entries.map((e) => e.targetNameEn)).toEqual(["100% sure_thing"]);
    for (const wildcard of ["%", "_", "\\"]) {
      const res = (await get(`/api/admin/audit?q=${encodeURIComponent(wildcard)}`)).json() as AuditPage;
      expect(
        res.entries.every((e) => JSON.stringify(e).includes(wildcard === "\\" ? "\\\\" : wildcard)),
        wildcard,
      ).toBe(true);
    }
    const underscore = (await get(`/api/admin/audit?q=${encodeURIComponent("e_t")}`)).json() as AuditPage;
    expect(underscore.entries.map((e) => e.targetNameEn)).toEqual(["100% sure_thing"]);
  });

  it("refuses a search of 10,000 characters with its own code, and a made-up cursor with 400", async () => {
    const long = await get(`/api/admin/audit?q=${"a".repeat(10_000)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().code).toBe("search_too_long");
    const bad = await get("/api/admin/audit?cursor=not-a-cursor");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe("bad_request");
  });
});

describe("contact inbox", () => {
  beforeAll(async () => {
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    await t.app.deps.db
      .insertInto("contact_submissions")
      .values(
        Array.from({ length: 12 }, (_, i) => ({
          id: `contact-${String(i).padStart(2, "0")}`,
          user_id: i === 5 ? admin.id : null,
          name: i === 3 ? "Sara Haddad" : `Person ${i}`,
          phone: `+96279000${String(i).padStart(4, "0")}`,
          city: null,
          country: null,
          gender: "Female",
          message: i === 7 ? "My code 50%_off does not work" : "Hello",
          handled_at: i % 2 === 0 ? new Date(start).toISOString() : null,
          // Two share a time: the id breaks the tie, so paging neither skips nor repeats them.
          created_at: new Date(start + Math.min(i, 10) * 60_000).toISOString(),
        })),
      )
      .execute();
  });

  it("pages through every message newest first, each once, ties broken by id", async () => {
    const ids = await walk("/api/admin/contact-submissions?limit=5", (b: ContactPage) => b.items.map((c) => c.id));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `contact-${String(11 - i).padStart(2, "0")}`));
    const open = await walk("/api/admin/contact-submissions?status=open&limit=2", (b: ContactPage) => b.items.map((c) => c.id));
    expect(open).toEqual(["contact-11", "contact-09", "contact-07", "contact-05", "contact-03", "contact-01"]);
  });

  it("finds by name, phone, text (wildcards literal) and the sender's e-mail", async () => {
    const q = async (text: string) =>
      ((await get(`/api/admin/contact-submissions?q=${encodeURIComponent(text)}`)).json() as ContactPage).items.map((c) => c.id);
    expect(await q("sara")).toEqual(["contact-03"]);
    expect(await q("790000011")).toEqual(["contact-11"]);
    expect(await q("50%_off")).toEqual(["contact-07"]);
    expect(await q("5%_off")).toEqual([]);
    expect(await q(`${admin.id.slice(-8)}@test`)).toEqual(["contact-05"]);
    const long = await get(`/api/admin/contact-submissions?q=${"x".repeat(201)}`);
    expect(long.json().code).toBe("search_too_long");
  });
});

describe("SMS and WhatsApp outbox", () => {
  beforeAll(async () => {
    for (let i = 0; i < 6; i++)
      await recordOutboxMessage(
        t.app.deps.db,
        { channel: "sms", to: `+96279111${String(i).padStart(4, "0")}`, body: i === 2 ? "Your code is 123_456" : `Code ${i}` },
        { provider: "outbox", status: "stored" },
      );
  });

  it("pages through every message, each once", async () => {
    const ids = await walk("/api/admin/sms-outbox?limit=4", (b: OutboxList) => b.messages.map((m) => m.id));
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it("finds by phone and by text, wildcards literal; the exact recipient filter still works", async () => {
    const q = async (text: string) =>
      ((await get(`/api/admin/sms-outbox?q=${encodeURIComponent(text)}`)).json() as OutboxList).messages.map((m) => m.body);
    expect(await q("791110004")).toEqual(["Code 4"]);
    expect(await q("123_456")).toEqual(["Your code is 123_456"]);
    expect(await q("3%4")).toEqual([]);
    const exact = (await get(`/api/admin/sms-outbox?recipient=${encodeURIComponent("+962791110001")}`)).json() as OutboxList;
    expect(exact.messages.map((m) => m.body)).toEqual(["Code 1"]);
    expect((await get(`/api/admin/sms-outbox?q=${"1".repeat(10_000)}`)).json().code).toBe("search_too_long");
  });
});
