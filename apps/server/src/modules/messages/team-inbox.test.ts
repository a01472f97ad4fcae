import type { ConversationList, ConversationNote, ConversationPerson, Operator } from "@hikaya/contracts";
import { NOTE_TEXT_MAX } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { familyWhoWrote, listen, openSse, sendText } from "./messages.test-helpers.ts";

const writer = familyWhoWrote;

const notesUrl = (conversation: string) => `/api/admin/conversations/${conversation}/notes`;
const addNote = (app: App, by: TestUser | null, conversation: string, text: unknown) =>
  app.inject({ method: "POST", url: notesUrl(conversation), headers: by?.headers ?? {}, payload: { text } });
const readNotes = (app: App, by: TestUser | null, conversation: string) =>
  app.inject({ method: "GET", url: notesUrl(conversation), headers: by?.headers ?? {} });
const handOver = (app: App, by: TestUser | null, conversation: string, operatorId: unknown) =>
  app.inject({
    method: "PUT",
    url: `/api/admin/conversations/${conversation}/assignee`,
    headers: by?.headers ?? {},
    payload: { operatorId },
  });
const inbox = async (app: App, by: TestUser, filter?: string) =>
  (
    await app.inject({ method: "GET", url: `/api/admin/conversations${filter ? `?filter=${filter}` : ""}`, headers: by.headers })
  ).json<ConversationList>();
const assigneeOf = async (app: App, conversation: string, by: TestUser) =>
  (
    await app.inject({ method: "GET", url: `/api/admin/conversations/${conversation}/person`, headers: by.headers })
  ).json<ConversationPerson>().assignedTo?.userId ?? null;

describe("private notes", () => {
  let t: TestApp;
  let base: string;
  let admin: TestUser;
  let amal: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t.app);
    admin = await createTestUser(t.app, { admin: true });
    amal = await createTestUser(t.app, { role: "facilitator" });
  });
  afterAll(async () => t?.close());

  it("an operator adds one; every operator reads them in order with author and time", async () => {
    const family = await writer(t.app);
    const first = await addNote(t.app, amal, family.id, "  Prefers voice notes  ");
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json<ConversationNote>()).toMatchObject({
      conversation: family.id,
      text: "Prefers voice notes",
      authorId: amal.id,
    });
    expect((await addNote(t.app, admin, family.id, "Called on Tuesday")).statusCode).toBe(200);
    const notes = (await readNotes(t.app, amal, family.id)).json<ConversationNote[]>();
    expect(notes.map((n) => [n.text, n.authorId])).toEqual([
      ["Prefers voice notes", amal.id],
      ["Called on Tuesday", admin.id],
    ]);
    expect(notes.every((n) => n.authorName !== "" && !Number.isNaN(Date.parse(n.createdAt)))).toBe(true);
    expect((await readNotes(t.app, admin, family.id)).json()).toEqual(notes);
  });

  it("a family member gets 403 and a visitor 401, on their own conversation too; bad text is 400 and stores nothing", async () => {
    const family = await writer(t.app);
    expect((await addNote(t.app, family, family.id, "mine")).statusCode).toBe(403);
    expect((await readNotes(t.app, family, family.id)).statusCode).toBe(403);
    expect((await addNote(t.app, null, family.id, "x")).statusCode).toBe(401);
    expect((await readNotes(t.app, null, family.id)).statusCode).toBe(401);
    for (const text of ["", "   ", "n".repeat(NOTE_TEXT_MAX + 1), 42]) {
      const res = await addNote(t.app, amal, family.id, text);
      expect(res.statusCode, String(text).slice(0, 10)).toBe(400);
      expect(res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect((await readNotes(t.app, amal, family.id)).json()).toEqual([]);
    expect((await addNote(t.app, amal, "00000000-0000-4000-8000-000000000000", "x")).statusCode).toBe(404);
  });

  it("reaches every operator's live stream, and never the family's API or stream", async () => {
    const family = await writer(t.app);
    const console1 = await openSse(`${base}/api/admin/messages/stream?access_token=${admin.token}`);
    const own = await openSse(`${base}/api/messages/stream?access_token=${family.token}`);
    await Promise.all([console1.ready, own.ready]);
    expect((await addNote(t.app, amal, family.id, "SECRET-NOTE angry about story 3")).statusCode).toBe(200);
    expect(await console1.waitForEvents("note", 1)).toEqual([{ conversation: family.id }]);

    // A message after the note reaches both streams: the family's stream carried only the message.
    expect((await sendText(t.app, family.headers, "are you there?")).statusCode).toBe(200);
    await Promise.all([console1.waitFor(1), own.waitFor(1)]);
    expect(own.events).toEqual([]);
    console1.close();
    own.close();

    const familyReads = [
      await t.app.inject({ method: "POST", url: "/api/messages", headers: family.headers, payload: {} }),
      await t.app.inject({ method: "GET", url: "/api/messages/unread", headers: family.headers }),
      await t.app.inject({ method: "GET", url: "/api/messages/greeting", headers: family.headers }),
    ];
    for (const res of familyReads) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain("SECRET-NOTE");
    }
    // Nor in the console's own message pages: a note is not a message.
    const page = await t.app.inject({
      method: "GET",
      url: `/api/admin/conversations/${family.id}/messages`,
      headers: admin.headers,
    });
    expect(page.body).not.toContain("SECRET-NOTE");
  });
});

describe("handing a conversation over", () => {
  let t: TestApp;
  let base: string;
  let admin: TestUser;
  let amal: TestUser;
  let bilal: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t.app);
    admin = await createTestUser(t.app, { admin: true });
    amal = await createTestUser(t.app, { role: "facilitator" });
    bilal = await createTestUser(t.app, { role: "facilitator" });
  });
  afterAll(async () => t?.close());

  it("an admin hands one to a facilitator, whose console is told; the owner hands it on; audited", async () => {
    const family = await writer(t.app);
    const bilalConsole = await openSse(`${base}/api/admin/messages/stream?access_token=${bilal.token}`);
    await bilalConsole.ready;
    const res = await handOver(t.app, admin, family.id, amal.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ userId: family.id, assignedTo: { userId: amal.id } });
    expect((await handOver(t.app, amal, family.id, bilal.id)).statusCode).toBe(200);
    expect(await bilalConsole.waitForEvents("assignment", 2)).toEqual([
      { conversation: family.id, assignee: amal.id, by: admin.id },
      { conversation: family.id, assignee: bilal.id, by: amal.id },
    ]);
    bilalConsole.close();
    expect(await assigneeOf(t.app, family.id, admin)).toBe(bilal.id);
    // Its owner may give it back to nobody.
    expect((await handOver(t.app, bilal, family.id, null)).statusCode).toBe(200);
    expect(await assigneeOf(t.app, family.id, admin)).toBeNull();
    const audit = await t.app.deps.db
      .selectFrom("admin_audit_log")
      .select(["action", "actor_id"])
      .where("target_id", "=", family.id)
      .orderBy("id")
      .execute();
    expect(audit).toEqual([
      { action: "conversation.assign", actor_id: admin.id },
      { action: "conversation.assign", actor_id: amal.id },
      { action: "conversation.unassign", actor_id: bilal.id },
    ]);
  });

  it("a facilitator who is not the owner gets 403; a target who is not an operator 400; nothing changes", async () => {
    const family = await writer(t.app);
    const other = await writer(t.app);
    expect((await handOver(t.app, admin, family.id, amal.id)).statusCode).toBe(200);
    const notOwner = await handOver(t.app, bilal, family.id, bilal.id);
    expect(notOwner.statusCode).toBe(403);
    expect(notOwner.json()).toMatchObject({ code: "forbidden" });
    // Unassigned, nobody owns it: a facilitator takes it with "assign to me", not by handing it over.
    expect((await handOver(t.app, bilal, other.id, bilal.id)).statusCode).toBe(403);
    for (const target of [other.id, "00000000-0000-4000-8000-000000000000"]) {
      const res = await handOver(t.app, admin, family.id, target);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: "not_an_operator" });
    }
    expect((await handOver(t.app, admin, family.id, 7)).statusCode).toBe(400);
    expect(await assigneeOf(t.app, family.id, admin)).toBe(amal.id);
    const others = await t.app.inject({
      method: "PUT",
      url: `/api/admin/conversations/${family.id}/assignee`,
      headers: other.headers,
      payload: { operatorId: null },
    });
    expect(others.statusCode).toBe(403);
    expect((await handOver(t.app, null, family.id, null)).statusCode).toBe(401);
    expect(await assigneeOf(t.app, family.id, admin)).toBe(amal.id);
  });

  it("lists the operators one can hand to, for facilitators too", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/admin/operators", headers: amal.headers });
    expect(res.statusCode).toBe(200);
    const ids = res.json<Operator[]>().map((o) => o.userId);
    expect(ids).toEqual(expect.arrayContaining([admin.id, amal.id, bilal.id]));
    const family = await createTestUser(t.app);
    expect(ids).not.toContain(family.id);
    expect((await t.app.inject({ method: "GET", url: "/api/admin/operators", headers: family.headers })).statusCode).toBe(403);
  });

  it("the inbox filters Mine and Unassigned and counts each tab", async () => {
    const t2 = await createTestApp();
    try {
      const [op, colleague] = [
        await createTestUser(t2.app, { role: "facilitator" }),
        await createTestUser(t2.app, { admin: true }),
      ];
      const [a, b, c] = [await writer(t2.app), await writer(t2.app), await writer(t2.app)];
      expect((await handOver(t2.app, colleague, a.id, op.id)).statusCode).toBe(200);
      expect((await handOver(t2.app, colleague, b.id, colleague.id)).statusCode).toBe(200);
      const all = await inbox(t2.app, op);
      expect(all.counts).toEqual({ all: 3, mine: 1, unassigned: 1 });
      expect((await inbox(t2.app, op, "mine")).conversations.map((x) => x.userId)).toEqual([a.id]);
      expect((await inbox(t2.app, op, "unassigned")).conversations.map((x) => x.userId)).toEqual([c.id]);
      expect((await inbox(t2.app, colleague)).counts).toEqual({ all: 3, mine: 1, unassigned: 1 });
      const bad = await t2.app.inject({ method: "GET", url: "/api/admin/conversations?filter=nobody", headers: op.headers });
      expect(bad.statusCode).toBe(400);
    } finally {
      await t2.close();
    }
  });
});

describe("the inbox tabs' counts (kept by migration 0031's triggers)", () => {
  it("follow every way a conversation comes, changes hands and goes, and a message to one changes none", async () => {
    const t2 = await createTestApp();
    try {
      const [op, colleague] = [
        await createTestUser(t2.app, { role: "facilitator" }),
        await createTestUser(t2.app, { admin: true }),
      ];
      const counts = async () => (await inbox(t2.app, op)).counts;
      // What counting the table says, to hold the kept numbers against.
      const recount = async () => {
        const rows = await t2.app.deps.db.selectFrom("conversations").select("assigned_to").execute();
        return {
          all: rows.length,
          mine: rows.filter((r) => r.assigned_to === op.id).length,
          unassigned: rows.filter((r) => r.assigned_to === null).length,
        };
      };
      const expectCounts = async (want: { all: number; mine: number; unassigned: number }) => {
        expect(await counts()).toEqual(want);
        expect(await recount()).toEqual(want);
      };
      await expectCounts({ all: 0, mine: 0, unassigned: 0 });
      const [a, b] = [await writer(t2.app), await writer(t2.app)];
      await expectCounts({ all: 2, mine: 0, unassigned: 2 });
      expect((await sendText(t2.app, a.headers, "again")).statusCode).toBe(200);
      const reply = await t2.app.inject({
        method: "POST",
        url: `/api/admin/conversations/${a.id}/messages`,
        headers: colleague.headers,
        payload: { message: "welcome", messageType: "text" },
      });
      expect(reply.statusCode, reply.body).toBe(200);
      await expectCounts({ all: 2, mine: 0, unassigned: 2 });
      expect((await handOver(t2.app, colleague, a.id, op.id)).statusCode).toBe(200);
      await expectCounts({ all: 2, mine: 1, unassigned: 1 });
      expect((await handOver(t2.app, op, a.id, colleague.id)).statusCode).toBe(200);
      await expectCounts({ all: 2, mine: 0, unassigned: 1 });
      expect((await handOver(t2.app, colleague, a.id, null)).statusCode).toBe(200);
      await expectCounts({ all: 2, mine: 0, unassigned: 2 });
      expect((await handOver(t2.app, colleague, b.id, colleague.id)).statusCode).toBe(200);
      await expectCounts({ all: 2, mine: 0, unassigned: 1 });
      // The colleague's account goes: b is nobody's again (foreign key set null); a's account goes with its conversation.
      await t2.app.deps.db.deleteFrom("users").where("id", "=", colleague.id).execute();
      await expectCounts({ all: 2, mine: 0, unassigned: 2 });
      await t2.app.deps.db.deleteFrom("users").where("id", "=", a.id).execute();
      await expectCounts({ all: 1, mine: 0, unassigned: 1 });
    } finally {
      await t2.close();
    }
  });
});

describe.runIf(testDialect() === "postgres")("notes and hand-over on two replicas of one PostgreSQL database", () => {
  let t: TwoReplicas;
  let baseB: string;
  beforeAll(async () => {
    t = await twoReplicas();
    baseB = await listen(t.replica);
  });
  afterAll(async () => t?.close());

  it("made through replica A, reach a console open on replica B", async () => {
    const [admin, amal] = [await createTestUser(t.app, { admin: true }), await createTestUser(t.app, { role: "facilitator" })];
    const family = await writer(t.app);
    const consoleB = await openSse(`${baseB}/api/admin/messages/stream?access_token=${amal.token}`);
    const ownB = await openSse(`${baseB}/api/messages/stream?access_token=${family.token}`);
    await Promise.all([consoleB.ready, ownB.ready]);
    expect((await addNote(t.app, admin, family.id, "seen on B")).statusCode).toBe(200);
    expect(await consoleB.waitForEvents("note", 1)).toEqual([{ conversation: family.id }]);
    expect((await handOver(t.app, admin, family.id, amal.id)).statusCode).toBe(200);
    expect(await consoleB.waitForEvents("assignment", 1)).toEqual([{ conversation: family.id, assignee: amal.id, by: admin.id }]);
    // B reads what A wrote.
    expect((await readNotes(t.replica, amal, family.id)).json<ConversationNote[]>().map((n) => n.text)).toEqual(["seen on B"]);
    expect((await sendText(t.app, family.headers, "later")).statusCode).toBe(200);
    await ownB.waitFor(1);
    expect(ownB.events).toEqual([]);
    consoleB.close();
    ownB.close();
  });
});
