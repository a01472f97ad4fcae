import type { ConversationList, ConversationSummary } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { multipart } from "./messages.test-helpers.ts";

let t: TestApp;
let app: App;
let admin: TestUser;
let facilitator: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  admin = await createTestUser(app, { admin: true });
  facilitator = await createTestUser(app, { role: "facilitator" });
});
afterAll(async () => t?.close());

interface PersonOptions {
  name?: string;
  /** E.164 on the account (phone sign-up). */
  phone?: string;
  /** The profile's number as the sign-up form keeps it: dial code + national number. */
  profile?: { countryCode: string; phoneNumber: string };
}

async function person(options: PersonOptions = {}): Promise<TestUser> {
  const user = await createTestUser(app, options.phone ? { phone: options.phone } : {});
  const now = new Date().toISOString();
  await app.deps.db
    .insertInto("profiles")
    .values({
      user_id: user.id,
      name: options.name ?? null,
      phone_number: options.profile?.phoneNumber ?? null,
      country_code: options.profile?.countryCode ?? null,
      from_landing_page: 0,
      agree_to_reminder: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return user;
}

async function sendText(user: TestUser, message: string) {
  const form = await multipart({ message, messageType: "text" });
  const res = await app.inject({
    method: "POST",
    url: "/api/message/send",
    headers: { ...user.headers, ...form.headers },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function reply(to: TestUser, message: string, by: TestUser = admin) {
  const res = await app.inject({
    method: "POST",
    url: `/api/admin/conversations/${to.id}/messages`,
    headers: by.headers,
    payload: { message, messageType: "text" },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function list(query: Record<string, string | number> = {}, who: TestUser = admin) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return app.inject({ method: "GET", url: `/api/admin/conversations?${search}`, headers: who.headers });
}

async function page(query: Record<string, string | number> = {}, who: TestUser = admin): Promise<ConversationList> {
  const res = await list(query, who);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as ConversationList;
}

/** Every conversation the search (and filter) finds, walking all pages. */
async function findAll(query: Record<string, string | number>, who: TestUser = admin): Promise<ConversationSummary[]> {
  const found: ConversationSummary[] = [];
  let cursor: string | null = null;
  do {
    const p: ConversationList = await page({ ...query, limit: 100, ...(cursor ? { cursor } : {}) }, who);
    found.push(...p.conversations);
    cursor = p.nextCursor;
  } while (cursor);
  return found;
}

const idsOf = (rows: ConversationSummary[]) => rows.map((c) => c.userId);

describe("paging", () => {
  it("walks every conversation once, newest activity first, while new messages arrive between pages", async () => {
    const people: TestUser[] = [];
    for (let i = 0; i < 12; i++) {
      const p = await person({ name: `Pager ${i}` });
      await sendText(p, `hello ${i}`);
      people.push(p);
    }
    const mine = new Set(people.map((p) => p.id));
    const seen: string[] = [];
    const moved = new Set<string>();
    let cursor: string | null = null;
    let round = 0;
    do {
      const p: ConversationList = await page({ limit: 3, q: "Pager", ...(cursor ? { cursor } : {}) });
      expect(p.conversations.length).toBeLessThanOrEqual(3);
      seen.push(...idsOf(p.conversations).filter((id) => mine.has(id)));
      cursor = p.nextCursor;
      // Between pages: a conversation already listed and one not listed yet both get a message, so both move to the top.
      const listed = people.find((x) => seen.includes(x.id) && !moved.has(x.id));
      const unlisted = people.find((x) => !seen.includes(x.id) && !moved.has(x.id));
      for (const x of [listed, unlisted]) {
        if (x && round < 3) {
          await sendText(x, `more news ${round}`);
          moved.add(x.id);
        }
      }
      round++;
    } while (cursor);

    expect(new Set(seen).size).toBe(seen.length);
    // Everything that did not move was listed; what moved went above the cursor (the live list shows it at the top).
    for (const p of people) if (!moved.has(p.id)) expect(seen).toContain(p.id);
    const top = idsOf((await page({ q: "Pager", limit: 100 })).conversations);
    expect(new Set([...seen, ...top])).toEqual(mine);
    expect(top.slice(0, moved.size).sort()).toEqual([...moved].sort());
  });

  it("breaks ties on the same last activity by user id, so a page boundary between them loses nobody", async () => {
    const tied: TestUser[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await person({ name: `Tied ${i}` });
      await sendText(p, "tie");
      tied.push(p);
    }
    const top = await app.deps.db
      .selectFrom("conversations")
      .select((eb) => eb.fn.max("last_message_id").as("m"))
      .executeTakeFirst();
    await app.deps.db
      .updateTable("conversations")
      .set({ last_message_id: Number(top?.m) })
      .where(
        "user_id",
        "in",
        tied.map((p) => p.id),
      )
      .execute();
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const p: ConversationList = await page({ limit: 1, q: "Tied", ...(cursor ? { cursor } : {}) });
      walked.push(...idsOf(p.conversations));
      cursor = p.nextCursor;
    } while (cursor);
    expect(walked).toEqual(
      tied
        .map((p) => p.id)
        .sort()
        .reverse(),
    );
  });

  it("says there is no next page exactly when there is none, and refuses a cursor it did not give", async () => {
    const p = await person({ name: "Solo Pagewalker" });
    await sendText(p, "one");
    const only = await page({ q: "Solo Pagewalker", limit: 1 });
    expect(idsOf(only.conversations)).toEqual([p.id]);
    expect(only.nextCursor).toBeNull();
    for (const cursor of ["bm9wZQ", "not*base64", "x".repeat(300)]) {
      const res = await list({ cursor });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("validation_failed");
    }
    expect((await list({ limit: 101 })).statusCode).toBe(400);
  });
});

describe("filters", () => {
  it("unread: the family wrote after the team last read; waiting: nobody answered the newest message; mine: assigned to me", async () => {
    const unreadOne = await person({ name: "Filter Unread" });
    await sendText(unreadOne, "please answer");
    const readNotAnswered = await person({ name: "Filter Read" });
    await sendText(readNotAnswered, "read me");
    await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${readNotAnswered.id}/read`,
      headers: admin.headers,
      payload: {},
    });
    const answered = await person({ name: "Filter Answered" });
    await sendText(answered, "a question");
    await reply(answered, "an answer");
    const filterPeople = [unreadOne, readNotAnswered, answered].map((p) => p.id);
    const only = (rows: ConversationSummary[]) => idsOf(rows).filter((id) => filterPeople.includes(id));

    expect(only(await findAll({ q: "Filter" }))).toEqual([answered.id, readNotAnswered.id, unreadOne.id]);
    expect(only(await findAll({ q: "Filter", filter: "unread" }))).toEqual([unreadOne.id]);
    expect(only(await findAll({ q: "Filter", filter: "waiting" }))).toEqual([readNotAnswered.id, unreadOne.id]);
    const all = await findAll({ q: "Filter" });
    expect(all.map((c) => [c.userId, c.unread, c.waiting])).toEqual([
      [answered.id, 0, false],
      [readNotAnswered.id, 0, true],
      [unreadOne.id, 1, true],
    ]);

    expect(only(await findAll({ q: "Filter", filter: "mine" }, facilitator))).toEqual([]);
    const assign = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${readNotAnswered.id}/assignee`,
      headers: facilitator.headers,
    });
    expect(assign.statusCode, assign.body).toBe(200);
    expect(assign.json().assignedTo).toMatchObject({ userId: facilitator.id });
    expect(only(await findAll({ q: "Filter", filter: "mine" }, facilitator))).toEqual([readNotAnswered.id]);
    expect(only(await findAll({ q: "Filter", filter: "mine" }, admin))).toEqual([]);
    // The family writes again: it is unread and waiting, and still the facilitator's.
    await sendText(readNotAnswered, "still there?");
    expect(only(await findAll({ q: "Filter", filter: "unread" }))).toEqual([readNotAnswered.id, unreadOne.id]);
    expect(only(await findAll({ q: "Filter", filter: "mine" }, facilitator))).toEqual([readNotAnswered.id]);
    // A search and a filter together.
    expect(only(await findAll({ q: "Filter Unread", filter: "waiting" }))).toEqual([unreadOne.id]);
  });

  it("the console's waiting count agrees with the waiting filter", async () => {
    const count = await app.inject({ method: "GET", url: "/api/admin/conversations/waiting", headers: admin.headers });
    expect(count.json().count).toBe((await findAll({ filter: "waiting" })).length);
  });
});

describe("assign to me", () => {
  it("assigns and unassigns, shows who has it, and audits both", async () => {
    const p = await person({ name: "Assignee Test" });
    await sendText(p, "hi");
    const url = `/api/admin/conversations/${p.id}/assignee`;
    const taken = await app.inject({ method: "POST", url, headers: facilitator.headers });
    expect(taken.statusCode).toBe(200);
    const listed = (await findAll({ q: "Assignee Test" }))[0];
    expect(listed?.assignedTo?.userId).toBe(facilitator.id);
    expect(listed?.assignedTo?.name).toMatch(/@test\.hikaya$/);
    const beside = await app.inject({ method: "GET", url: `/api/admin/conversations/${p.id}/person`, headers: admin.headers });
    expect(beside.json().assignedTo).toMatchObject({ userId: facilitator.id });

    // An admin takes it over, then lets it go.
    expect((await app.inject({ method: "POST", url, headers: admin.headers })).json().assignedTo.userId).toBe(admin.id);
    const released = await app.inject({ method: "DELETE", url, headers: admin.headers });
    expect(released.statusCode).toBe(200);
    expect(released.json()).toEqual({ userId: p.id, assignedTo: null });
    expect((await findAll({ q: "Assignee Test" }))[0]?.assignedTo).toBeNull();

    const entries = await app.deps.db
      .selectFrom("admin_audit_log")
      .select(["actor_id", "action", "details"])
      .where("target_id", "=", p.id)
      .orderBy("id")
      .execute();
    expect(entries.map((e) => [e.actor_id, e.action, JSON.parse(e.details)])).toEqual([
      [facilitator.id, "conversation.assign", { from: null, to: facilitator.id }],
      [admin.id, "conversation.assign", { from: facilitator.id, to: admin.id }],
      [admin.id, "conversation.unassign", { from: admin.id, to: null }],
    ]);
  });

  it("answers 404 for someone who has not written, and refuses family members", async () => {
    const silent = await person({ name: "Never Wrote" });
    const res = await app.inject({
      method: "POST",
      url: `/api/admin/conversations/${silent.id}/assignee`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(404);
    const family = await person();
    await sendText(family, "mine?");
    for (const method of ["POST", "DELETE"] as const) {
      const refused = await app.inject({
        method,
        url: `/api/admin/conversations/${family.id}/assignee`,
        headers: family.headers,
      });
      expect(refused.statusCode).toBe(403);
    }
    expect((await findAll({ q: family.id.slice(0, 8) }))[0]?.assignedTo ?? null).toBeNull();
  });
});

describe("search", () => {
  it("finds a person by phone in international and local forms, with or without separators", async () => {
    // Signed up by phone in Jordan: E.164 on the account, "+962" + national number on the profile.
    const jordan = await person({
      name: "Phone Jordan",
      phone: "+962791234567",
      profile: { countryCode: "+962", phoneNumber: "791234567" },
    });
    await sendText(jordan, "hello");
    // An e-mail account whose profile alone holds a Palestinian number.
    const palestine = await person({ name: "Phone Palestine", profile: { countryCode: "+970", phoneNumber: "599123456" } });
    await sendText(palestine, "hello");

    for (const q of [
      "+962791234567",
      "962791234567",
      "00962791234567",
      "0791234567",
      "079 123 4567",
      "079-123-4567",
      "+962 79 123 4567",
      "٠٧٩١٢٣٤٥٦٧",
      "791234567",
    ]) {
      expect(idsOf(await findAll({ q })), q).toEqual([jordan.id]);
    }
    for (const q of ["+970599123456", "0599123456", "970 599 123 456", "059-912-3456"]) {
      expect(idsOf(await findAll({ q })), q).toEqual([palestine.id]);
    }
    // Shown in international form whichever way it was stored.
    expect((await findAll({ q: "0599123456" }))[0]?.phone).toBe("+970599123456");
    const beside = await app.inject({
      method: "GET",
      url: `/api/admin/conversations/${palestine.id}/person`,
      headers: admin.headers,
    });
    expect(beside.json().phone).toBe("+970599123456");
    expect(await findAll({ q: "0791234568" })).toEqual([]);
  });

  it("finds a person by name (any case, Arabic too) and by the text of their messages", async () => {
    const layla = await person({ name: "Layla Haddad" });
    await sendText(layla, "We watched the story about the olive tree");
    const arabic = await person({ name: "سارة الخطيب" });
    await sendText(arabic, "شكرا على القصة");
    expect(idsOf(await findAll({ q: "layla HAD" }))).toEqual([layla.id]);
    expect(idsOf(await findAll({ q: "الخطيب" }))).toEqual([arabic.id]);
    expect(idsOf(await findAll({ q: "OLIVE tree" }))).toEqual([layla.id]);
    expect(idsOf(await findAll({ q: "على القصة" }))).toEqual([arabic.id]);
    // A facilitator's words find the conversation too.
    await reply(layla, "Thank you for the pomegranate picture");
    expect(idsOf(await findAll({ q: "pomegranate" }))).toEqual([layla.id]);
  });

  it("takes %, _ and \\ literally", async () => {
    const percent = await person({ name: "Deal 50% off" });
    await sendText(percent, "x");
    const underscore = await person({ name: "snake_case" });
    await sendText(underscore, "x");
    const backslash = await person({ name: "back\\slash" });
    await sendText(backslash, "x");
    const plain = await person({ name: "Deal 50X off snakeXcase" });
    await sendText(plain, "x");

    expect(idsOf(await findAll({ q: "50%" }))).toEqual([percent.id]);
    expect(idsOf(await findAll({ q: "%" }))).toEqual([percent.id]);
    expect(idsOf(await findAll({ q: "e_c" }))).toEqual([underscore.id]);
    expect(idsOf(await findAll({ q: "k\\s" }))).toEqual([backslash.id]);
    expect(idsOf(await findAll({ q: "\\" }))).toEqual([backslash.id]);
  });

  it("refuses a search longer than 200 characters with search_too_long, and takes one of exactly 200", async () => {
    for (const q of ["a".repeat(201), "' or 1=1 --".repeat(1000)]) {
      const res = await list({ q });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: "search_too_long", details: { max: 200 } });
    }
    expect((await list({ q: "a".repeat(200) })).statusCode).toBe(200);
    expect((await list({ q: "' or 1=1 --" })).json().conversations).toEqual([]);
  });
});
