import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createReplica, createTestApp, type TestApp, testDialect } from "../../test/test-app.ts";
import { addPerson, hours, seedStories, sentReminders, testClock, watch } from "./reminders.test-helpers.ts";
import { ReminderScheduler, STALE_CLAIM_MS } from "./scheduler.ts";
import { DEFAULT_SETTINGS, saveSettings } from "./settings.service.ts";
import { readStopToken } from "./stop-links.ts";

let t: TestApp;
let app: App;
let stories: Awaited<ReturnType<typeof seedStories>>;
const admin = { id: "test-admin", email: null };
const story = (index: number) => {
  const found = stories[index];
  if (!found) throw new Error(`no story ${index}`);
  return found;
};

beforeAll(async () => {
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0", PUBLIC_URL: "https://hikaya.test" });
  app = t.app;
  stories = await seedStories(app, 3);
});
afterAll(async () => t?.close());
beforeEach(async () => {
  // Each test's people are its own: earlier ones stop being candidates.
  await app.deps.db.updateTable("profiles").set({ agree_to_reminder: 0 }).execute();
  await saveSettings(app.deps.db, admin, { ...DEFAULT_SETTINGS });
});

// 08:00 UTC is 11:00 in Amman (UTC+3): inside the default 09:00–20:00 window.
const T0 = new Date("2030-01-07T08:00:00.000Z");

async function jobsOf(userId: string) {
  return app.deps.db.selectFrom("reminder_jobs").selectAll().where("user_id", "=", userId).orderBy("sequence").execute();
}

describe("story reminders over time", () => {
  it("sends the first after 3 days and again after 7, at most maxPerStory, in the person's language and channel", async () => {
    const clock = testClock(T0);
    const s = new ReminderScheduler(app.deps, clock.now);
    const person = await addPerson(app, { joinedAt: hours(T0, -24), language: "ar", whatsapp: true, name: "ليلى" });
    await watch(app, person.id, story(0), T0); // story 2 unlocks at T0

    clock.set(hours(T0, 71));
    expect((await s.runDue()).sent).toBe(0);
    clock.set(hours(T0, 72));
    expect(await s.runDue()).toMatchObject({ sent: 1 });
    expect(await s.runDue()).toEqual({ sent: 0, skipped: 0, failed: 0 });

    let sent = await sentReminders(app, person.phone);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.channel).toBe("whatsapp");
    expect(sent[0]?.body).toContain("مرحبًا ليلى");
    expect(sent[0]?.body).toContain("القصة 2");
    expect(sent[0]?.body).toContain(`https://hikaya.test/story/${stories[1]?.id}`);
    const token = /\/api\/reminders\/stop\?token=([\w.-]+)/.exec(sent[0]?.body ?? "")?.[1] ?? "";
    expect(readStopToken(app.deps.auth.keys.hmacSecret, token)).toMatchObject({ userId: person.id, language: "ar" });

    clock.set(hours(T0, 72 + 167));
    expect((await s.runDue()).sent).toBe(0);
    clock.set(hours(T0, 72 + 168));
    expect((await s.runDue()).sent).toBe(1);
    clock.set(hours(T0, 72 + 168 * 3));
    expect((await s.runDue()).sent).toBe(0); // maxPerStory = 2
    sent = await sentReminders(app, person.phone);
    expect(sent).toHaveLength(2);
    expect((await jobsOf(person.id)).map((j) => [j.sequence, j.status])).toEqual([
      [1, "sent"],
      [2, "sent"],
    ]);
  });

  it("uses SMS and English for a person who did not opt in to WhatsApp", async () => {
    const clock = testClock(hours(T0, 72));
    const person = await addPerson(app, { joinedAt: T0, language: "en", whatsapp: false, name: null });
    await new ReminderScheduler(app.deps, clock.now).runDue();
    const [message] = await sentReminders(app, person.phone);
    expect(message?.channel).toBe("sms");
    expect(message?.body).toMatch(/^Hello there, your next Hikaya story “Story 1” is waiting/);
  });

  it("waits for the daytime window in the person's time zone", async () => {
    // Due at 20:30 UTC = 23:30 in Amman: outside 09:00–20:00 until 06:00 UTC the next day.
    const due = new Date("2030-02-04T20:30:00.000Z");
    const clock = testClock(due);
    const s = new ReminderScheduler(app.deps, clock.now);
    const person = await addPerson(app, { joinedAt: hours(due, -72) });
    expect(await s.runDue()).toMatchObject({ sent: 0, skipped: 1 });
    const [job] = await jobsOf(person.id);
    expect(job).toMatchObject({ status: "due", next_try_at: "2030-02-05T06:00:00.000Z" });
    clock.set(new Date("2030-02-05T05:59:00.000Z"));
    expect((await s.runDue()).sent).toBe(0);
    clock.set(new Date("2030-02-05T06:00:00.000Z"));
    expect((await s.runDue()).sent).toBe(1);
    expect(await sentReminders(app, person.phone)).toHaveLength(1);
  });

  it("never sends a person more than one reminder a day", async () => {
    await saveSettings(app.deps.db, admin, { ...DEFAULT_SETTINGS, firstAfterHours: 0 });
    const start = new Date("2030-03-04T08:00:00.000Z");
    const clock = testClock(start);
    const s = new ReminderScheduler(app.deps, clock.now);
    const person = await addPerson(app, { joinedAt: start });
    expect((await s.runDue()).sent).toBe(1); // story 1, unlocked at sign-up
    await watch(app, person.id, story(0), hours(start, 1)); // story 2 unlocks: due at once (0 hours)
    clock.set(hours(start, 2));
    expect(await s.runDue()).toMatchObject({ sent: 0, skipped: 1 });
    clock.set(hours(start, 24));
    expect((await s.runDue()).sent).toBe(1);
    const sent = await sentReminders(app, person.phone);
    expect(sent.map((m) => m.body.includes("Story 2"))).toEqual([false, true]);
  });

  it("sends nothing to a person who said no, who deleted their account, or who finished every story", async () => {
    const clock = testClock(hours(T0, 24 * 30));
    const no = await addPerson(app, { joinedAt: T0, agree: false });
    const deleted = await addPerson(app, { joinedAt: T0 });
    await app.deps.db.updateTable("users").set({ deleted_at: T0.toISOString() }).where("id", "=", deleted.id).execute();
    const finished = await addPerson(app, { joinedAt: T0 });
    for (const story of stories) await watch(app, finished.id, story, T0);
    await new ReminderScheduler(app.deps, clock.now).runDue();
    for (const p of [no, deleted, finished]) {
      expect(await sentReminders(app, p.phone)).toHaveLength(0);
      expect(await jobsOf(p.id)).toHaveLength(0);
    }
  });

  it("stops a planned reminder when the person says no before it goes, and skips it once the story is watched", async () => {
    const clock = testClock(new Date("2030-04-01T20:30:00.000Z")); // night in Amman: planned, not sent
    const s = new ReminderScheduler(app.deps, clock.now);
    const optsOut = await addPerson(app, { joinedAt: hours(clock.now(), -72) });
    const watches = await addPerson(app, { joinedAt: hours(clock.now(), -72) });
    await s.runDue();
    await app.deps.db.updateTable("profiles").set({ agree_to_reminder: 0 }).where("user_id", "=", optsOut.id).execute();
    await watch(app, watches.id, story(0), clock.now());
    clock.set(new Date("2030-04-02T08:00:00.000Z"));
    await s.runDue();
    expect((await jobsOf(optsOut.id)).map((j) => j.status)).toEqual(["stopped"]);
    expect((await jobsOf(watches.id)).map((j) => [j.status, j.last_error])).toEqual([["skipped", "story_watched"]]);
    expect(await sentReminders(app, optsOut.phone)).toHaveLength(0);
  });

  it("marks a reminder to an invalid phone number failed, without retrying", async () => {
    const clock = testClock(hours(T0, 72));
    const person = await addPerson(app, { joinedAt: T0, phone: "+96211" });
    expect(await new ReminderScheduler(app.deps, clock.now).runDue()).toMatchObject({ failed: 1 });
    expect((await jobsOf(person.id)).map((j) => [j.status, j.last_error])).toEqual([["failed", "invalid_phone"]]);
    clock.advanceHours(48);
    expect((await new ReminderScheduler(app.deps, clock.now).runDue()).failed).toBe(0);
  });

  it("a replica that died after sending does not cause a second message; one that died before sending does not lose it", async () => {
    const clock = testClock(new Date("2030-05-06T20:30:00.000Z")); // planned at night, held for the morning
    const s = new ReminderScheduler(app.deps, clock.now);
    const delivered = await addPerson(app, { joinedAt: hours(clock.now(), -72) });
    const lost = await addPerson(app, { joinedAt: hours(clock.now(), -72) });
    await s.runDue();
    const morning = new Date("2030-05-07T08:00:00.000Z");
    const [jobA] = await jobsOf(delivered.id);
    const [jobB] = await jobsOf(lost.id);
    // Both claimed by a replica that then died; it had handed A to the provider, not B.
    for (const job of [jobA, jobB])
      await app.deps.db
        .updateTable("reminder_jobs")
        .set({ status: "sending", claimed_by: "dead-replica", claimed_at: morning.toISOString() })
        .where("id", "=", job?.id ?? "")
        .execute();
    await app.deps.messages.send({ channel: "sms", to: delivered.phone, body: "earlier copy", purpose: `reminder:${jobA?.id}` });

    clock.set(new Date(morning.getTime() + STALE_CLAIM_MS - 60_000));
    expect(await s.runDue()).toEqual({ sent: 0, skipped: 0, failed: 0 }); // the claim is still fresh
    clock.set(new Date(morning.getTime() + STALE_CLAIM_MS + 60_000));
    await s.runDue();
    expect(await sentReminders(app, delivered.phone)).toHaveLength(1);
    expect(await sentReminders(app, lost.phone)).toHaveLength(1);
    expect((await jobsOf(delivered.id))[0]?.status).toBe("sent");
    expect((await jobsOf(lost.id))[0]?.status).toBe("sent");
  });

  it("sends nothing while reminders are turned off in the settings", async () => {
    await saveSettings(app.deps.db, admin, { ...DEFAULT_SETTINGS, enabled: false });
    const person = await addPerson(app, { joinedAt: T0 });
    expect(await new ReminderScheduler(app.deps, () => hours(T0, 100)).runDue()).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(await jobsOf(person.id)).toHaveLength(0);
  });
});

describe("whom and when, in real use (issue 28)", () => {
  it("reminds in the zone the browser reported, else the country's most populous zone, not its first listed one", async () => {
    // 05:20 UTC: 00:20 in New York, 07:20 in Amman, 14:20 in Tokyo; Adak, the US's first listed zone, is at 19:20.
    const at = new Date("2030-02-04T05:20:00.000Z");
    const clock = testClock(at);
    const s = new ReminderScheduler(app.deps, clock.now);
    const american = await addPerson(app, { joinedAt: hours(at, -72), phone: "+12126647665" });
    const inTokyo = await addPerson(app, { joinedAt: hours(at, -72) });
    await app.deps.db.updateTable("profiles").set({ time_zone: "Asia/Tokyo" }).where("user_id", "=", inTokyo.id).execute();
    const unknownZone = await addPerson(app, { joinedAt: hours(at, -72) });
    await app.deps.db.updateTable("profiles").set({ time_zone: "Mars/Olympus" }).where("user_id", "=", unknownZone.id).execute();

    expect(await s.runDue()).toMatchObject({ sent: 1, skipped: 2 });
    expect(await sentReminders(app, inTokyo.phone)).toHaveLength(1);
    expect((await jobsOf(american.id))[0]).toMatchObject({ status: "due", next_try_at: "2030-02-04T14:00:00.000Z" }); // 09:00 NY
    expect((await jobsOf(unknownZone.id))[0]).toMatchObject({ status: "due", next_try_at: "2030-02-04T06:00:00.000Z" }); // Amman
    clock.set(new Date("2030-02-04T14:00:00.000Z"));
    await s.runDue();
    expect(await sentReminders(app, american.phone)).toHaveLength(1);
  });

  it("names only published stories: nothing about a draft after the last published one, nor one unpublished since", async () => {
    const at = new Date("2030-07-01T08:00:00.000Z");
    const draftId = `draft-${at.getTime()}`;
    await app.deps.db
      .insertInto("stories")
      .values({
        id: draftId,
        position: stories.length + 1,
        title_en: "Draft",
        title_ar: "مسودة",
        subtitle_en: "",
        subtitle_ar: "",
        video_url: "https://example.test/v.mp4",
        thumbnail_path: null,
        duration_seconds: null,
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
        published: 0,
      })
      .execute();
    try {
      const finished = await addPerson(app, { joinedAt: hours(at, -24 * 30) });
      for (const story of stories) await watch(app, finished.id, story, hours(at, -24 * 10));
      const planned = await addPerson(app, { joinedAt: hours(at, -24 * 30) });
      for (const story of stories) await watch(app, planned.id, story, hours(at, -24 * 10));
      // A job planned while the story was still published (it was unpublished since).
      await app.deps.db
        .insertInto("reminder_jobs")
        .values({
          id: `job-${draftId}`,
          idempotency_key: `${planned.id}:${draftId}:1`,
          user_id: planned.id,
          story_id: draftId,
          sequence: 1,
          status: "due",
          attempts: 0,
          due_at: hours(at, -1).toISOString(),
          next_try_at: hours(at, -1).toISOString(),
          created_at: hours(at, -1).toISOString(),
          updated_at: hours(at, -1).toISOString(),
        })
        .execute();
      expect(await new ReminderScheduler(app.deps, () => at).runDue()).toEqual({ sent: 0, skipped: 1, failed: 0 });
      expect(await sentReminders(app, finished.phone)).toHaveLength(0);
      expect(await jobsOf(finished.id)).toHaveLength(0);
      expect(await sentReminders(app, planned.phone)).toHaveLength(0);
      expect((await jobsOf(planned.id)).map((j) => [j.status, j.last_error])).toEqual([["skipped", "story_unpublished"]]);
    } finally {
      await app.deps.db.deleteFrom("stories").where("id", "=", draftId).execute();
    }
  });

  it("sends nothing to a blocked account, neither newly planned nor planned before the block", async () => {
    const night = new Date("2030-08-05T20:30:00.000Z"); // planned at night in Amman, held for the morning
    const clock = testClock(night);
    const s = new ReminderScheduler(app.deps, clock.now);
    const blockedLater = await addPerson(app, { joinedAt: hours(night, -72) });
    await s.runDue();
    expect((await jobsOf(blockedLater.id)).map((j) => j.status)).toEqual(["due"]);
    const blocked = await addPerson(app, { joinedAt: hours(night, -72) });
    const until = new Date("2130-01-01T00:00:00.000Z").toISOString();
    await app.deps.db
      .updateTable("users")
      .set({ banned_until: until })
      .where("id", "in", [blocked.id, blockedLater.id])
      .execute();
    clock.set(new Date("2030-08-06T08:00:00.000Z"));
    expect(await s.runDue()).toEqual({ sent: 0, skipped: 1, failed: 0 });
    expect(await jobsOf(blocked.id)).toHaveLength(0);
    expect((await jobsOf(blockedLater.id)).map((j) => [j.status, j.last_error])).toEqual([["stopped", "blocked"]]);
    for (const p of [blocked, blockedLater]) expect(await sentReminders(app, p.phone)).toHaveLength(0);
  });

  it("applies rules changed during a run to the rest of it: new text at once, nothing more once turned off", async () => {
    const at = new Date("2030-09-02T08:00:00.000Z");
    const people = [];
    for (let i = 0; i < 3; i++) people.push(await addPerson(app, { joinedAt: hours(at, -80 + i) }));
    let sends = 0;
    const messages = new Proxy(app.deps.messages, {
      get(target, key) {
        if (key === "send")
          return async (message: Parameters<App["deps"]["messages"]["send"]>[0]) => {
            const sent = await target.send(message);
            sends++;
            // An operator saves while the run is going: first new texts, then reminders off.
            if (sends === 1)
              await saveSettings(app.deps.db, admin, {
                ...DEFAULT_SETTINGS,
                templates: {
                  en: "New rules {name}: {story} {link} {stopLink}",
                  ar: "قواعد جديدة {name}: {story} {link} {stopLink}",
                },
              });
            if (sends === 2) await saveSettings(app.deps.db, admin, { ...DEFAULT_SETTINGS, enabled: false });
            return sent;
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const s = new ReminderScheduler({ ...app.deps, messages }, () => at);
    expect(await s.runDue()).toMatchObject({ sent: 2 });
    const [first, second, third] = await Promise.all(people.map((p) => sentReminders(app, p.phone)));
    expect(first?.[0]?.body).toMatch(/^Hello Sami/);
    expect(second?.[0]?.body).toMatch(/^New rules Sami/);
    expect(third).toHaveLength(0);
    // Handed back, not left claimed: it goes once reminders are on again.
    const [job] = await jobsOf(people[2]?.id ?? "");
    expect(job).toMatchObject({ status: "due", claimed_by: null });
    await saveSettings(app.deps.db, admin, { ...DEFAULT_SETTINGS });
    expect((await new ReminderScheduler(app.deps, () => at).runDue()).sent).toBe(1);
  });
});

describe("replicas", () => {
  // PostgreSQL: two servers on one database, as two replicas are. SQLite: two schedulers in the one process.
  it("two schedulers running at once send each reminder exactly once (counted in the outbox)", async () => {
    const start = new Date("2030-06-03T08:00:00.000Z");
    const people: { phone: string }[] = [];
    for (let i = 0; i < 40; i++) people.push(await addPerson(app, { joinedAt: hours(start, -72) }));
    const replica = testDialect() === "postgres" ? await createReplica(t.config) : null;
    try {
      const a = new ReminderScheduler(app.deps, () => start, { batch: 4 });
      const b = new ReminderScheduler((replica ?? app).deps, () => start, { batch: 4 });
      const before = (await sentReminders(app)).length;
      const started = performance.now();
      const [ra, rb] = await Promise.all([a.runDue(), b.runDue()]);
      const ms = performance.now() - started;
      const after = await sentReminders(app);
      const ours = after.slice(before).filter((m) => people.some((p) => p.phone === m.recipient));
      expect(ra.sent + rb.sent).toBe(40);
      if (replica) expect(Math.min(ra.sent, rb.sent)).toBeGreaterThan(0); // both replicas did part of the work
      expect(ours).toHaveLength(40);
      expect(new Set(ours.map((m) => m.recipient)).size).toBe(40);
      console.info(
        `exactly-once (${testDialect()}): scheduler A sent ${ra.sent}, scheduler B sent ${rb.sent}, outbox ${ours.length} for 40 people, ${ms.toFixed(0)} ms`,
      );
    } finally {
      await replica?.close();
    }
  });
});
