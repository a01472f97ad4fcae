import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../../deps.ts";
import { type TwoReplicas, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { type LocalPushService, startLocalPushService } from "../reminders/push.test-helpers.ts";
import { addPerson, twilioSignature, twilioTestEnv } from "../reminders/reminders.test-helpers.ts";
import { listen, multipart, openSse, type SseClient, sendText, wavBytes } from "./messages.test-helpers.ts";
import { OPERATOR_PUSH_COALESCE_MINUTES } from "./operator-alerts.service.ts";
import { OperatorPresence, PRESENCE_TTL_MS } from "./operator-presence.service.ts";

/**
 * Web Push to operators with no console open, on two replicas of one database (one SQLite file in this process, or
 * one PostgreSQL database), against a local push service that decrypts each push as a browser would. Families write
 * through replica A; consoles open on A or B.
 */
let t: TwoReplicas;
let a: App;
let baseA: string;
let baseB: string;
let push: LocalPushService;
const AUTH_TOKEN = "test-auth-token";
const WEBHOOK = "https://hikaya.test/api/messages/inbound/whatsapp";

beforeAll(async () => {
  push = await startLocalPushService();
  t = await twoReplicas(
    // WhatsApp in as well (an inbound text fetches nothing from the provider, so it needs no fake of it).
    { ...twilioTestEnv("http://127.0.0.1:9", AUTH_TOKEN), TWILIO_WHATSAPP_FROM: "+15005550007" },
    { push: push.options },
  );
  a = t.app;
  baseA = await listen(t.app);
  baseB = await listen(t.replica);
});
afterAll(async () => {
  await t?.close();
  await push?.close();
});
// Unassigned messages reach every subscribed operator: each test starts with none but its own.
afterEach(async () => {
  await a.deps.db.deleteFrom("push_subscriptions").where("audience", "=", "operator").execute();
});

let paths = 0;
/** An operator whose console browser turned on "Notify me on this device" (saved past the route's address check). */
async function operatorWithPush(role: "facilitator" | "admin", language: "en" | "ar" = "en") {
  const operator = await createTestUser(a, { role });
  const path = `/p/operator-${++paths}`;
  const s = push.subscription(path);
  await a.deps.db
    .insertInto("push_subscriptions")
    .values({
      endpoint: s.endpoint,
      user_id: operator.id,
      p256dh: s.keys.p256dh,
      auth: s.keys.auth,
      created_at: new Date().toISOString(),
      audience: "operator",
      language,
    })
    .execute();
  return { ...operator, path };
}

async function family(name: string | null = "Maryam") {
  return addPerson(a, { joinedAt: new Date(), name });
}

/** What each push endpoint received, once every push A started has finished. */
async function pushesTo(...paths: string[]) {
  await a.deps.push.idle();
  return paths.map((path) => push.received.filter((r) => r.path === path).map((r) => r.payload));
}

const consoleOf = async (base: string, operator: TestUser, conversation?: string) => {
  const only = conversation ? `&conversation=${conversation}` : "";
  const stream = await openSse(`${base}/api/admin/messages/stream?access_token=${operator.token}${only}`);
  await stream.ready;
  return stream;
};

/** Closes a console and waits until no replica counts its operator present any more. */
async function closeConsole(stream: SseClient, operator: TestUser) {
  stream.close();
  await vi.waitFor(
    async () => {
      const rows = await a.deps.db
        .selectFrom("operator_presence")
        .select("replica_id")
        .where("operator_id", "=", operator.id)
        .execute();
      expect(rows).toEqual([]);
    },
    { timeout: 5000, interval: 20 },
  );
}

describe("turning on operator push: operators only, endpoints checked as families' are", () => {
  const endpoint = "https://93.184.215.14/push/v1/console"; // a public address literal: nothing is resolved
  const keys = { p256dh: "console-key", auth: "console-auth" };
  const subscribe = (who: TestUser | null, body: object = { endpoint, keys, language: "ar" }) =>
    a.inject({
      method: "POST",
      url: "/api/admin/push/subscription",
      headers: who?.headers ?? {},
      payload: body,
    });

  it("refuses a visitor (401) and a family account (403), and saves nothing for them", async () => {
    const member = await family();
    expect((await subscribe(null)).statusCode).toBe(401);
    const refused = await subscribe(member);
    expect(refused.statusCode).toBe(403);
    const rows = await a.deps.db.selectFrom("push_subscriptions").select("endpoint").where("user_id", "=", member.id).execute();
    expect(rows).toEqual([]);
  });

  it("saves a facilitator's browser as an operator's, in the console's language; refuses a local endpoint; forgets it on off", async () => {
    const facilitator = await createTestUser(a, { role: "facilitator" });
    expect((await subscribe(facilitator)).statusCode).toBe(200);
    const stored = () =>
      a.deps.db
        .selectFrom("push_subscriptions")
        .select(["user_id", "audience", "language"])
        .where("endpoint", "=", endpoint)
        .execute();
    expect(await stored()).toEqual([{ user_id: facilitator.id, audience: "operator", language: "ar" }]);

    const local = await subscribe(facilitator, { endpoint: "https://127.0.0.1/p/1", keys, language: "en" });
    expect(local.statusCode).toBe(400);
    expect(local.json()).toMatchObject({ code: "validation_failed", details: { field: "endpoint" } });
    expect(local.json().message).toMatch(/^This notification address cannot be used/);
    // Another account cannot take the endpoint, operator or not.
    const admin = await createTestUser(a, { role: "admin" });
    expect((await subscribe(admin)).statusCode).toBe(409);

    const off = await a.inject({
      method: "POST",
      url: "/api/admin/push/unsubscribe",
      headers: facilitator.headers,
      payload: { endpoint },
    });
    expect(off.statusCode).toBe(200);
    expect(await stored()).toEqual([]);
    expect((await subscribe(admin, { endpoint, keys, language: "en" })).statusCode).toBe(200);
    await a.deps.db.deleteFrom("push_subscriptions").where("endpoint", "=", endpoint).execute();
  });
});

describe("a family's message pushed to operators with no console open", () => {
  it("unassigned: every subscribed operator, in their console's language, opening the conversation, without its text", async () => {
    const [en, ar] = [await operatorWithPush("facilitator", "en"), await operatorWithPush("admin", "ar")];
    const withoutPush = await createTestUser(a, { role: "facilitator" });
    const maryam = await family("Maryam");
    expect((await sendText(a, maryam.headers, "My husband is ill, call after 5")).statusCode).toBe(200);

    const [toEn, toAr] = await pushesTo(en.path, ar.path);
    const opens = { url: `/admin/inbox/${maryam.id}`, tag: `hikaya-inbox-${maryam.id}` };
    expect(toEn).toEqual([
      { title: "New message from Maryam", body: "A message. Tap to open the conversation.", lang: "en", ...opens },
    ]);
    expect(toAr).toEqual([{ title: "رسالة جديدة من Maryam", body: "رسالة. اضغط لفتح المحادثة.", lang: "ar", ...opens }]);
    // Nothing of what the family wrote leaves the server in a push, and nobody without a subscription was sent one.
    expect(JSON.stringify(push.received)).not.toContain("husband");
    expect(
      await a.deps.db.selectFrom("operator_push_sent").select("operator_id").where("operator_id", "=", withoutPush.id).execute(),
    ).toEqual([]);
  });

  it("assigned: only its owner hears of it; a voice note says so; an operator who lost the role hears nothing", async () => {
    const [owner, colleague] = [await operatorWithPush("facilitator"), await operatorWithPush("facilitator")];
    const sami = await family("Sami");
    expect((await sendText(a, sami.headers, "hello")).statusCode).toBe(200);
    await a.deps.push.idle();
    const taken = await a.inject({ method: "POST", url: `/api/admin/conversations/${sami.id}/assignee`, headers: owner.headers });
    expect(taken.statusCode).toBe(200);
    await a.deps.db.deleteFrom("operator_push_sent").where("conversation_user_id", "=", sami.id).execute();

    const form = await multipart(
      { messageType: "audio", durationSeconds: "1" },
      { bytes: wavBytes(1), type: "audio/wav", filename: "v.wav" },
    );
    const voice = await a.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...sami.headers, ...form.headers },
      payload: form.payload,
    });
    expect(voice.statusCode, voice.body).toBe(200);
    const [toOwner, toColleague] = await pushesTo(owner.path, colleague.path);
    expect(toOwner?.at(-1)).toMatchObject({
      title: "New message from Sami",
      body: "A voice message. Tap to open the conversation.",
    });
    expect(toOwner).toHaveLength(2); // the first, unassigned message, and the voice note
    expect(toColleague).toHaveLength(1); // the first only

    // The owner stops being an operator: their subscription stays, but no push goes to it.
    await a.deps.db.updateTable("users").set({ app_metadata: "{}" }).where("id", "=", owner.id).execute();
    await a.deps.db.deleteFrom("operator_push_sent").where("conversation_user_id", "=", sami.id).execute();
    expect((await sendText(a, sami.headers, "anyone?")).statusCode).toBe(200);
    expect((await pushesTo(owner.path))[0]).toHaveLength(2);
  });

  it("not while the operator's console is open on this replica; again once it closed", async () => {
    const amal = await operatorWithPush("facilitator");
    const maryam = await family();
    const inbox = await consoleOf(baseA, amal);
    expect((await sendText(a, maryam.headers, "are you there?")).statusCode).toBe(200);
    await inbox.waitFor(1);
    expect((await pushesTo(amal.path))[0]).toEqual([]);

    await closeConsole(inbox, amal);
    expect((await sendText(a, maryam.headers, "hello?")).statusCode).toBe(200);
    expect((await pushesTo(amal.path))[0]).toHaveLength(1);

    // Back at the console and away again, inside the coalescing window: she has caught up, so the next one pushes.
    await closeConsole(await consoleOf(baseA, amal), amal);
    expect((await sendText(a, maryam.headers, "one more")).statusCode).toBe(200);
    expect((await pushesTo(amal.path))[0]).toHaveLength(2);
  });

  it("not while a console of theirs is open on the other replica, one conversation's included; again once it closed", async () => {
    const amal = await operatorWithPush("facilitator");
    const bilal = await operatorWithPush("facilitator");
    const maryam = await family();
    const onB = await consoleOf(baseB, amal);
    // Bilal's console follows one conversation only (another family's): a console all the same.
    const other = await family("Huda");
    const oneConversation = await consoleOf(baseB, bilal, other.id);
    expect((await sendText(a, maryam.headers, "from A")).statusCode).toBe(200);
    await onB.waitFor(1);
    expect(await pushesTo(amal.path, bilal.path)).toEqual([[], []]);

    await closeConsole(onB, amal);
    await closeConsole(oneConversation, bilal);
    expect((await sendText(a, maryam.headers, "still from A")).statusCode).toBe(200);
    const [toAmal, toBilal] = await pushesTo(amal.path, bilal.path);
    expect(toAmal).toHaveLength(1);
    expect(toBilal).toHaveLength(1);
  });

  it("a replica that died stops counting once its presence expired", async () => {
    const amal = await operatorWithPush("facilitator");
    const maryam = await family();
    // A replica that held Amal's console and was killed: its row stays, no longer renewed.
    const row = {
      operator_id: amal.id,
      replica_id: "killed-replica",
      until: new Date(Date.now() + PRESENCE_TTL_MS).toISOString(),
    };
    await a.deps.db.insertInto("operator_presence").values(row).execute();
    expect((await sendText(a, maryam.headers, "hello")).statusCode).toBe(200);
    expect((await pushesTo(amal.path))[0]).toEqual([]);

    // PRESENCE_TTL_MS after its last renewal, it no longer counts.
    await a.deps.db.deleteFrom("operator_push_sent").where("operator_id", "=", amal.id).execute();
    const lapsed = new Date(Date.now() - 1000).toISOString();
    await a.deps.db.updateTable("operator_presence").set({ until: lapsed }).where("replica_id", "=", "killed-replica").execute();
    expect((await sendText(a, maryam.headers, "hello?")).statusCode).toBe(200);
    expect((await pushesTo(amal.path))[0]).toHaveLength(1);
    await a.deps.db.deleteFrom("operator_presence").where("replica_id", "=", "killed-replica").execute();
  });

  it("coalesced: one push per conversation per operator in the window, the next after it", async () => {
    const amal = await operatorWithPush("facilitator");
    const [maryam, sami] = [await family("Maryam"), await family("Sami")];
    for (const text of ["one", "two", "three"]) expect((await sendText(a, maryam.headers, text)).statusCode).toBe(200);
    expect((await sendText(a, sami.headers, "another family")).statusCode).toBe(200);
    const titles = async () => (await pushesTo(amal.path))[0]?.map((p) => p.title);
    expect(await titles()).toEqual(["New message from Maryam", "New message from Sami"]);

    // The window passes.
    const earlier = new Date(Date.now() - OPERATOR_PUSH_COALESCE_MINUTES * 60_000 - 1000).toISOString();
    await a.deps.db.updateTable("operator_push_sent").set({ sent_at: earlier }).where("operator_id", "=", amal.id).execute();
    expect((await sendText(a, maryam.headers, "four")).statusCode).toBe(200);
    expect(await titles()).toEqual(["New message from Maryam", "New message from Sami", "New message from Maryam"]);
  });

  it("a WhatsApp message comes in: pushed, saying it came by WhatsApp; a facilitator's reply pushes no operator", async () => {
    const amal = await operatorWithPush("facilitator");
    const huda = await addPerson(a, { joinedAt: new Date(), name: "Huda" });
    const params = { From: `whatsapp:${huda.phone}`, Body: "salam", MessageSid: `SM-${huda.id}` };
    const inbound = await a.inject({
      method: "POST",
      url: "/api/messages/inbound/whatsapp",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilioSignature(AUTH_TOKEN, WEBHOOK, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
    expect(inbound.statusCode, inbound.body).toBe(200);
    expect((await pushesTo(amal.path))[0]).toEqual([
      expect.objectContaining({ title: "New message from Huda", body: "A WhatsApp message. Tap to open the conversation." }),
    ]);

    await a.deps.db.deleteFrom("operator_push_sent").where("conversation_user_id", "=", huda.id).execute();
    const colleague = await createTestUser(a, { role: "facilitator" });
    const reply = await a.inject({
      method: "POST",
      url: `/api/admin/conversations/${huda.id}/messages`,
      headers: colleague.headers,
      payload: { message: "Hello Huda", messageType: "text" },
    });
    expect(reply.statusCode, reply.body).toBe(200);
    expect((await pushesTo(amal.path))[0]).toHaveLength(1);
  });
});

describe("a replica's word that an operator has a console open", () => {
  const rowsOf = (replica: string) =>
    a.deps.db.selectFrom("operator_presence").select(["operator_id", "until"]).where("replica_id", "=", replica).execute();

  it("is renewed on each heartbeat, outlives none of its streams, drops dead replicas' rows, and goes at shutdown", async () => {
    const [amal, bilal] = [await createTestUser(a, { role: "facilitator" }), await createTestUser(a, { role: "admin" })];
    let now = Date.parse("2030-01-01T10:00:00.000Z");
    const presence = new OperatorPresence(a.deps.db, () => now, "replica-x");
    const until = (ms: number) => new Date(ms + PRESENCE_TTL_MS).toISOString();

    await presence.opened(amal.id);
    await presence.opened(amal.id); // a second tab
    await presence.closed(amal.id);
    expect(await rowsOf("replica-x")).toEqual([{ operator_id: amal.id, until: until(now) }]);

    // A stream that opens and ends at once, its writes not awaited in between, leaves no row.
    void presence.opened(bilal.id);
    await presence.closed(bilal.id);
    expect(await rowsOf("replica-x")).toEqual([{ operator_id: amal.id, until: until(now) }]);

    // The heartbeat moves the row on, and clears another replica's rows that expired (it died).
    const dead = { operator_id: bilal.id, replica_id: "replica-dead", until: new Date(now - 1).toISOString() };
    await a.deps.db.insertInto("operator_presence").values(dead).execute();
    now += 25_000;
    await presence.renew();
    expect(await rowsOf("replica-x")).toEqual([{ operator_id: amal.id, until: until(now) }]);
    expect(await rowsOf("replica-dead")).toEqual([]);

    await presence.close();
    expect(await rowsOf("replica-x")).toEqual([]);
  });
});
