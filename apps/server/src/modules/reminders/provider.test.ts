import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { addPerson, seedStories, twilioSignature, twilioTestEnv } from "./reminders.test-helpers.ts";
import { MAX_ATTEMPTS, RETRY_BASE_MS, ReminderScheduler } from "./scheduler.ts";
import { DEFAULT_SETTINGS, saveSettings } from "./settings.service.ts";

/**
 * The Twilio-style provider against a local stand-in for its Messages API: a provider that is down is
 * retried with backoff and then marked failed; a delivered reminder is never sent again; the inbound
 * webhook needs Twilio's signature when the auth token is configured.
 */
let t: TestApp;
let app: App;
let provider: Server;
let failNext = 0;
const received: URLSearchParams[] = [];
const AUTH_TOKEN = "test-auth-token";

beforeAll(async () => {
  provider = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ message: "Service unavailable" }));
        return;
      }
      received.push(new URLSearchParams(body));
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: `SM${received.length}` }));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  t = await createTestApp(twilioTestEnv(`http://127.0.0.1:${(provider.address() as AddressInfo).port}`, AUTH_TOKEN));
  app = t.app;
  await seedStories(app, 2);
  await saveSettings(
    app.deps.db,
    { id: "admin", email: null },
    { ...DEFAULT_SETTINGS, firstAfterHours: 0, windowStart: "00:00", windowEnd: "00:00" },
  );
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => provider?.close(resolve));
});

const jobOf = (userId: string) =>
  app.deps.db.selectFrom("reminder_jobs").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();

describe("a provider that is down", () => {
  it("is retried with backoff, then the reminder is marked failed", async () => {
    const start = new Date("2031-01-06T08:00:00.000Z");
    const person = await addPerson(app, { joinedAt: start });
    const s = new ReminderScheduler(app.deps, () => now);
    let now = start;
    failNext = MAX_ATTEMPTS;
    expect(await s.runDue()).toEqual({ sent: 0, skipped: 0, failed: 1 });
    expect(await jobOf(person.id)).toMatchObject({
      status: "due",
      attempts: 1,
      last_error: "Service unavailable",
      next_try_at: new Date(start.getTime() + RETRY_BASE_MS).toISOString(),
    });
    now = new Date(start.getTime() + RETRY_BASE_MS - 1000);
    expect((await s.runDue()).failed).toBe(0); // not before its time
    now = new Date(start.getTime() + RETRY_BASE_MS);
    expect((await s.runDue()).failed).toBe(1);
    expect((await jobOf(person.id)).next_try_at).toBe(new Date(now.getTime() + RETRY_BASE_MS * 4).toISOString());
    now = new Date(now.getTime() + RETRY_BASE_MS * 4);
    expect((await s.runDue()).failed).toBe(1);
    expect(await jobOf(person.id)).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    now = new Date(now.getTime() + 48 * 3600_000);
    expect(await s.runDue()).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(received.filter((r) => r.get("To") === person.phone)).toHaveLength(0);
  });

  it("recovers on a retry and never sends a delivered reminder again", async () => {
    const start = new Date("2031-02-03T08:00:00.000Z");
    const person = await addPerson(app, { joinedAt: start, whatsapp: true });
    let now = start;
    const s = new ReminderScheduler(app.deps, () => now);
    failNext = 1;
    expect((await s.runDue()).failed).toBe(1);
    now = new Date(start.getTime() + RETRY_BASE_MS);
    expect((await s.runDue()).sent).toBe(1);
    for (let day = 1; day <= 3; day++) {
      now = new Date(start.getTime() + day * 24 * 3600_000);
      await s.runDue();
    }
    const mine = received.filter((r) => r.get("To") === `whatsapp:${person.phone}`);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.get("Body")).toContain("https://hikaya.test/api/reminders/stop?token=");
    expect(await jobOf(person.id)).toMatchObject({ status: "sent", attempts: 2, channel: "whatsapp" });
  });
});

describe("the inbound webhook with the auth token configured", () => {
  const url = "https://hikaya.test/api/reminders/inbound/twilio";
  const sign = (params: Record<string, string>) => twilioSignature(AUTH_TOKEN, url, params);
  const post = (params: Record<string, string>, signature?: string) =>
    app.inject({
      method: "POST",
      url: "/api/reminders/inbound/twilio",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) },
      payload: new URLSearchParams(params).toString(),
    });
  const consent = async (userId: string) =>
    (await app.deps.db.selectFrom("profiles").select("agree_to_reminder").where("user_id", "=", userId).executeTakeFirstOrThrow())
      .agree_to_reminder;

  it("refuses an unsigned or wrongly signed STOP and accepts Twilio's signature", async () => {
    const person = await addPerson(app, { joinedAt: new Date() });
    const params = { From: person.phone, Body: "STOP", MessageSid: "SM1" };
    expect((await post(params)).statusCode).toBe(403);
    expect((await post(params, sign({ ...params, Body: "HELLO" }))).statusCode).toBe(403);
    expect(await consent(person.id)).toBe(1);
    expect((await post(params, sign(params))).statusCode).toBe(200);
    expect(await consent(person.id)).toBe(0);
  });

  it("acts on each MessageSid once: a captured STOP posted again after the person opted back in changes nothing", async () => {
    const person = await addPerson(app, { joinedAt: new Date() });
    const stop = { From: person.phone, Body: "STOP", MessageSid: "SMcaptured0001" };
    expect((await post(stop, sign(stop))).statusCode).toBe(200);
    expect(await consent(person.id)).toBe(0);

    // The person turns reminders back on; then the captured request, signature and all, arrives again.
    await app.deps.db.updateTable("profiles").set({ agree_to_reminder: 1 }).where("user_id", "=", person.id).execute();
    const replay = await post(stop, sign(stop));
    expect(replay.statusCode).toBe(200); // what Twilio expects of a delivery, so it does not retry
    expect(replay.headers["content-type"]).toContain("text/xml");
    expect(await consent(person.id)).toBe(1);
    const recorded = await app.deps.db
      .selectFrom("reminder_inbound_messages")
      .select("message_sid")
      .where("message_sid", "=", "SMcaptured0001")
      .execute();
    expect(recorded).toHaveLength(1);

    // A signed request without a MessageSid is refused (every Twilio message has one), and changes nothing.
    const noSid = { From: person.phone, Body: "STOP" };
    expect((await post(noSid, sign(noSid))).statusCode).toBe(400);
    expect(await consent(person.id)).toBe(1);

    // A new STOP (a new message, a new id) still works.
    const again = { ...stop, MessageSid: "SMcaptured0002" };
    expect((await post(again, sign(again))).statusCode).toBe(200);
    expect(await consent(person.id)).toBe(0);
  });
});
