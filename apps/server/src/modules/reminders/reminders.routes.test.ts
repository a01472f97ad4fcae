import type { ReminderQueuePage, ReminderSettings } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { addPerson, seedStories, sentReminders } from "./reminders.test-helpers.ts";
import { createStopToken } from "./stop-links.ts";

let t: TestApp;
let app: App;
let admin: TestUser;
let member: TestUser;

const rules = {
  enabled: true,
  firstAfterHours: 0,
  repeatAfterHours: 24,
  maxPerStory: 1,
  windowStart: "00:00",
  windowEnd: "00:00",
};

beforeAll(async () => {
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0", PUBLIC_URL: "https://hikaya.test" });
  app = t.app;
  admin = await createTestUser(app, { admin: true });
  member = await createTestUser(app);
  await seedStories(app, 2);
});
afterAll(async () => t?.close());

const profileOf = (userId: string) =>
  app.deps.db
    .selectFrom("profiles")
    .select(["agree_to_reminder", "agree_to_reminder_at", "reminders_stopped_via"])
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();

describe("operators' reminder API", () => {
  it("refuses visitors and family members", async () => {
    for (const [method, url] of [
      ["GET", "/api/admin/reminders/settings"],
      ["PUT", "/api/admin/reminders/settings"],
      ["POST", "/api/admin/reminders/run"],
      ["GET", "/api/admin/reminders/queue"],
      ["POST", "/api/admin/reminders/preview"],
    ] as const) {
      expect((await app.inject({ method, url })).statusCode).toBe(401);
      expect((await app.inject({ method, url, headers: member.headers })).statusCode).toBe(403);
    }
  });

  it("reads the defaults, saves rules and templates, and refuses an unknown or missing placeholder", async () => {
    const initial = (
      await app.inject({ url: "/api/admin/reminders/settings", headers: admin.headers })
    ).json() as ReminderSettings;
    expect(initial).toMatchObject({
      enabled: true,
      firstAfterHours: 72,
      repeatAfterHours: 168,
      windowStart: "09:00",
      windowEnd: "20:00",
    });
    expect(initial.templates.ar).toContain("{stopLink}");

    const templates = {
      en: "Hi {name}! {story}: {link} Stop: {stopLink}",
      ar: "أهلًا {name}! {story}: {link} للإيقاف: {stopLink}",
    };
    const saved = await app.inject({
      method: "PUT",
      url: "/api/admin/reminders/settings",
      headers: admin.headers,
      payload: { ...rules, templates },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ ...rules, templates });

    const unknown = await app.inject({
      method: "PUT",
      url: "/api/admin/reminders/settings",
      headers: admin.headers,
      payload: { ...rules, templates: { ...templates, ar: "{name} {link} {stopLink} {promo}" } },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: "validation_failed",
      details: { field: "templates.ar", reason: "unknown_placeholder", placeholder: "promo" },
    });
    const noStop = await app.inject({
      method: "PUT",
      url: "/api/admin/reminders/settings",
      headers: admin.headers,
      payload: { ...rules, templates: { ...templates, en: "Watch {link}" } },
    });
    expect(noStop.json()).toMatchObject({ details: { reason: "missing_placeholder", placeholder: "stopLink" } });
    const badTime = await app.inject({
      method: "PUT",
      url: "/api/admin/reminders/settings",
      headers: admin.headers,
      payload: { ...rules, windowStart: "25:00" },
    });
    expect(badTime.statusCode).toBe(400);
    // The refused saves changed nothing.
    expect((await app.inject({ url: "/api/admin/reminders/settings", headers: admin.headers })).json()).toMatchObject({
      templates,
    });
  });

  it("refuses a save made from rules another operator has saved over since (409 with the stored rules)", async () => {
    const put = (payload: object) =>
      app.inject({ method: "PUT", url: "/api/admin/reminders/settings", headers: admin.headers, payload });
    const opened = (
      await app.inject({ url: "/api/admin/reminders/settings", headers: admin.headers })
    ).json() as ReminderSettings;
    // Two console tabs opened the same rules; the first saves.
    const first = await put({ ...rules, maxPerStory: 3, version: opened.version });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ maxPerStory: 3, version: opened.version + 1 });

    const stale = await put({ ...rules, maxPerStory: 5, enabled: false, version: opened.version });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { maxPerStory: 3, enabled: true, version: opened.version + 1 } },
    });
    const stored = (await app.inject({ url: "/api/admin/reminders/settings", headers: admin.headers })).json();
    expect(stored).toMatchObject({ maxPerStory: 3, enabled: true, version: opened.version + 1 });

    const again = await put({ ...rules, version: opened.version + 1 });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ ...rules, version: opened.version + 2 });
  });

  it("previews a template in both languages with sample values", async () => {
    const en = await app.inject({
      method: "POST",
      url: "/api/admin/reminders/preview",
      headers: admin.headers,
      payload: { language: "en", template: "Hello {name}, watch {story}: {link} ({stopLink})" },
    });
    expect(en.json().text).toMatch(
      /^Hello Layla, watch The Olive Tree: https:\/\/hikaya\.test\/story\/1 \(https:\/\/hikaya\.test\/api\/reminders\/stop/,
    );
    const ar = await app.inject({
      method: "POST",
      url: "/api/admin/reminders/preview",
      headers: admin.headers,
      payload: { language: "ar" },
    });
    expect(ar.json().text).toContain("أهلًا ليلى! شجرة الزيتون");
    const bad = await app.inject({
      method: "POST",
      url: "/api/admin/reminders/preview",
      headers: admin.headers,
      payload: { language: "en", template: "{nom} {link} {stopLink}" },
    });
    expect(bad.json()).toMatchObject({ code: "validation_failed", details: { placeholder: "nom" } });
  });

  it("sends the due reminders now, audits it, and pages the queue by status", async () => {
    const people = [];
    for (let i = 0; i < 3; i++) people.push(await addPerson(app, { joinedAt: new Date(Date.now() - 3600_000) }));
    const invalid = await addPerson(app, { joinedAt: new Date(Date.now() - 3600_000), phone: "+96211" });
    const run = await app.inject({ method: "POST", url: "/api/admin/reminders/run", headers: admin.headers });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toEqual({ sent: 3, skipped: 0, failed: 1 });
    for (const p of people) expect(await sentReminders(app, p.phone)).toHaveLength(1);
    expect(await sentReminders(app, invalid.phone)).toHaveLength(0);
    expect((await app.inject({ method: "POST", url: "/api/admin/reminders/run", headers: admin.headers })).json()).toEqual({
      sent: 0,
      skipped: 0,
      failed: 0,
    });

    const audit = (await app.inject({ url: "/api/admin/audit?limit=50", headers: admin.headers })).json().entries as {
      action: string;
    }[];
    expect(audit.filter((e) => e.action === "reminders.run")).toHaveLength(2);
    expect(audit.some((e) => e.action === "reminders.settings")).toBe(true);

    const first = (
      await app.inject({ url: "/api/admin/reminders/queue?limit=2", headers: admin.headers })
    ).json() as ReminderQueuePage;
    expect(first.jobs).toHaveLength(2);
    expect(first.counts).toMatchObject({ sent: 3, failed: 1 });
    expect(first.nextBefore).not.toBeNull();
    const second = (
      await app.inject({ url: `/api/admin/reminders/queue?limit=2&before=${first.nextBefore}`, headers: admin.headers })
    ).json() as ReminderQueuePage;
    expect(second.jobs).toHaveLength(2);
    expect(second.nextBefore).toBeNull();
    expect(new Set([...first.jobs, ...second.jobs].map((j) => j.id)).size).toBe(4);
    const failed = (
      await app.inject({ url: "/api/admin/reminders/queue?status=failed", headers: admin.headers })
    ).json() as ReminderQueuePage;
    expect(failed.jobs.map((j) => [j.userId, j.lastError])).toEqual([[invalid.id, "invalid_phone"]]);
    const badCursor = await app.inject({ url: "/api/admin/reminders/queue?before=nope", headers: admin.headers });
    expect(badCursor.statusCode).toBe(400);
  });
});

describe("the stop link", () => {
  it("asks first, turns reminders off once, records when and how, and refuses reuse and tampering", async () => {
    const person = await addPerson(app, { joinedAt: new Date(), language: "ar" });
    const token = createStopToken(app.deps.auth.keys.hmacSecret, { userId: person.id, tokenId: "job-1", language: "ar" });

    const page = await app.inject({ url: `/api/reminders/stop?token=${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain('dir="rtl"');
    expect(page.body).toContain("إيقاف التذكيرات");
    expect((await profileOf(person.id)).agree_to_reminder).toBe(1); // a link preview that opens the page stops nothing

    const used = await app.inject({
      method: "POST",
      url: "/api/reminders/stop",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${encodeURIComponent(token)}`,
    });
    expect(used.statusCode).toBe(200);
    expect(used.body).toContain("تم إيقاف التذكيرات");
    const profile = await profileOf(person.id);
    expect(profile).toMatchObject({ agree_to_reminder: 0, reminders_stopped_via: "link" });
    expect(Date.now() - Date.parse(profile.agree_to_reminder_at ?? "")).toBeLessThan(60_000);

    // Shown to the person in Edit Profile and to operators in the person detail.
    const own = await app.inject({ url: "/api/account", headers: person.headers });
    expect(own.json()).toMatchObject({
      agreeToReminder: false,
      remindersStoppedVia: "link",
      agreeToReminderAt: profile.agree_to_reminder_at,
    });
    const detail = await app.inject({ url: `/api/admin/users/${person.id}/detail`, headers: admin.headers });
    expect(detail.json().profile).toMatchObject({ agreeToReminder: false, remindersStoppedVia: "link" });
    const back = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: person.headers,
      payload: { agreeToReminder: true },
    });
    expect(back.json()).toMatchObject({ agreeToReminder: true, remindersStoppedVia: null });
    const offHere = await app.inject({
      method: "POST",
      url: "/api/account/preferences",
      headers: person.headers,
      payload: { agreeToReminder: false },
    });
    expect(offHere.json()).toMatchObject({ agreeToReminder: false, remindersStoppedVia: "profile" });

    const again = await app.inject({ method: "POST", url: "/api/reminders/stop", payload: { token } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "conflict", details: { reason: "stop_link_used" } });

    const [payload] = token.split(".");
    const forged = `${Buffer.from(JSON.stringify({ p: "hikaya/reminders-stop/v1", u: member.id, j: "x", l: "en" })).toString("base64url")}.${token.split(".")[1]}`;
    for (const bad of [forged, `${payload}.AAAA`, "garbage", ""]) {
      const res = await app.inject({ method: "POST", url: "/api/reminders/stop", payload: { token: bad } });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ code: "bad_request", details: { reason: "invalid_stop_link" } });
    }
    const badPage = await app.inject({ url: "/api/reminders/stop?token=garbage", headers: { "accept-language": "en" } });
    expect(badPage.headers["content-type"]).toContain("text/html");
    expect(badPage.body).toContain("This link is not valid");
    const usedPage = await app.inject({
      method: "POST",
      url: "/api/reminders/stop",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${encodeURIComponent(token)}`,
    });
    expect(usedPage.body).toContain("سبق استخدام هذا الرابط");
  });
});

describe("STOP by reply (no provider signature configured)", () => {
  it("turns reminders off for the sender's number, by SMS or WhatsApp, in English or Arabic", async () => {
    for (const [from, body] of [
      ["", "STOP"],
      ["whatsapp:", "توقف"],
    ]) {
      const person = await addPerson(app, { joinedAt: new Date() });
      const res = await app.inject({
        method: "POST",
        url: "/api/reminders/inbound/twilio",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ From: `${from}${person.phone}`, Body: ` ${body} ` }).toString(),
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toContain("text/xml");
      expect(await profileOf(person.id)).toMatchObject({ agree_to_reminder: 0, reminders_stopped_via: "reply" });
    }
    const other = await addPerson(app, { joinedAt: new Date() });
    await app.inject({
      method: "POST",
      url: "/api/reminders/inbound/twilio",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ From: other.phone, Body: "Thanks, stop by later" }).toString(),
    });
    expect((await profileOf(other.id)).agree_to_reminder).toBe(1);
  });
});
