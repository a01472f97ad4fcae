import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueMedia } from "../modules/media/enqueue.ts";
import { mediaWorkerOf } from "../modules/media/worker.ts";
import { listen, openSse } from "../modules/messages/messages.test-helpers.ts";
import { addPerson, hours, seedStories, testClock, watch } from "../modules/reminders/reminders.test-helpers.ts";
import { ReminderScheduler } from "../modules/reminders/scheduler.ts";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { createTestUser } from "../test/test-users.ts";

// /metrics: off without METRICS_TOKEN, 401 with another token, and each family moves when its thing happens.

const TOKEN = "metrics-token-for-tests-0123456789";
let on: TestApp;
let off: TestApp;
let base: string;
beforeAll(async () => {
  on = await createTestApp({ METRICS_TOKEN: TOKEN, REMINDER_INTERVAL_SECONDS: "0" });
  off = await createTestApp();
  base = await listen(on.app);
});
afterAll(async () => {
  await on?.close();
  await off?.close();
});

async function scrape(): Promise<string> {
  const res = await on.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toContain("text/plain");
  return res.body;
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe("/metrics", () => {
  it("is off (404) without METRICS_TOKEN, and 401 with a wrong or missing token", async () => {
    expect((await off.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(404);
    const offWithToken = await off.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(offWithToken.statusCode).toBe(404);
    for (const authorization of [`Bearer ${TOKEN}x`, "Bearer ", TOKEN]) {
      const res = await on.app.inject({ method: "GET", url: "/metrics", headers: { authorization } });
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain("hikaya_");
    }
    expect((await on.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
  });

  it("counts requests by route pattern and status class, never the raw URL", async () => {
    const route = { route: "/api/settings", method: "GET", status: "2xx" };
    const before = await scrape();
    expect((await on.app.inject({ method: "GET", url: "/api/settings" })).statusCode).toBe(200);
    const missing = await on.app.inject({ method: "GET", url: "/storage/v1/object/public/thumbnails/no-such-story-42" });
    expect(missing.statusCode).toBe(404);
    const after = await scrape();
    expect(sample(after, "hikaya_http_request_duration_seconds_count", route)).toBe(
      sample(before, "hikaya_http_request_duration_seconds_count", route) + 1,
    );
    const notFound = { route: "/storage/v1/object/public/:bucket/*", status: "4xx", method: "GET" };
    expect(sample(after, "hikaya_http_request_duration_seconds_count", notFound)).toBe(
      sample(before, "hikaya_http_request_duration_seconds_count", notFound) + 1,
    );
    expect(after).not.toContain("no-such-story-42");
    // A 4xx is not a server error.
    expect(sample(after, "hikaya_http_server_errors_total")).toBe(0);
  });

  it("counts a server error (5xx) by route pattern", async () => {
    const route = { route: "/auth/v1/token" };
    const accounts = on.app.deps.auth.service.accounts;
    const before = sample(await scrape(), "hikaya_http_server_errors_total", route);
    // A fault the service did not expect: the answer is a bare 500.
    const original = accounts.signInWithPassword;
    accounts.signInWithPassword = () => Promise.reject(new Error("simulated fault"));
    try {
      const res = await on.app.inject({
        method: "POST",
        url: "/auth/v1/token?grant_type=password",
        headers: { apikey: on.app.deps.auth.keys.anonKey, "content-type": "application/json" },
        payload: { email: "someone@users.hikaya.app", password: "secret123" },
      });
      expect(res.statusCode).toBe(500);
    } finally {
      accounts.signInWithPassword = original;
    }
    const after = await scrape();
    expect(sample(after, "hikaya_http_server_errors_total", route)).toBe(before + 1);
    expect(sample(after, "hikaya_http_request_duration_seconds_count", { ...route, status: "5xx" })).toBe(1);
  });

  it("reports the live streams open", async () => {
    const family = await createTestUser(on.app);
    expect(sample(await scrape(), "hikaya_live_streams_open")).toBe(0);
    const stream = await openSse(`${base}/api/messages/stream?access_token=${family.token}`);
    await stream.ready;
    expect(sample(await scrape(), "hikaya_live_streams_open")).toBe(1);
    stream.close();
  });

  it("counts bus signals received, with the lag of this process's own", async () => {
    const channel = "metrics_test";
    const heard = new Promise<void>((resolve) => {
      void on.app.deps.bus.subscribe(channel, () => resolve());
    });
    const before = await scrape();
    await on.app.deps.bus.publish(channel, "ping");
    await heard;
    const after = await scrape();
    expect(sample(after, "hikaya_bus_signals_received_total", { channel })).toBe(
      sample(before, "hikaya_bus_signals_received_total", { channel }) + 1,
    );
    expect(sample(after, "hikaya_bus_signal_lag_seconds_count", { channel })).toBe(1);
  });

  it("reports the media queue's depth by lane", async () => {
    await mediaWorkerOf(on.app)?.stop(); // so the job stays queued
    const before = sample(await scrape(), "hikaya_media_queue_depth", { lane: "audio" });
    await enqueueMedia(on.app.deps, { bucket: "recordings", key: "metrics/voice.wav", kind: "audio" });
    expect(sample(await scrape(), "hikaya_media_queue_depth", { lane: "audio" })).toBe(before + 1);
  });

  it("counts cache hits and misses per cache", async () => {
    const person = await createTestUser(on.app);
    const before = await scrape();
    // The same signed-in read twice: the second finds the token, the session and the list held.
    for (let i = 0; i < 2; i++) {
      expect((await on.app.inject({ method: "GET", url: "/api/stories", headers: person.headers })).statusCode).toBe(200);
    }
    const after = await scrape();
    for (const cache of ["story_list", "verified_tokens", "live_sessions"]) {
      for (const family of ["hikaya_cache_misses_total", "hikaya_cache_hits_total"]) {
        expect({ cache, family, moved: sample(after, family, { cache }) > sample(before, family, { cache }) }).toEqual({
          cache,
          family,
          moved: true,
        });
      }
    }
  });

  it("counts reminder sends by channel", async () => {
    // 08:00 UTC is 11:00 in Amman, inside the default sending window; the next story unlocked 3 days before.
    const t0 = new Date("2030-01-07T08:00:00.000Z");
    const [first] = await seedStories(on.app, 2);
    const person = await addPerson(on.app, { joinedAt: hours(t0, -24) });
    if (first) await watch(on.app, person.id, first, t0);
    const before = sample(await scrape(), "hikaya_reminder_sends_total", { channel: "sms" });
    const clock = testClock(hours(t0, 72));
    expect(await new ReminderScheduler(on.app.deps, clock.now).runDue()).toMatchObject({ sent: 1 });
    expect(sample(await scrape(), "hikaya_reminder_sends_total", { channel: "sms" })).toBe(before + 1);
  });

  it("times each password check", async () => {
    const before = sample(await scrape(), "hikaya_auth_hash_duration_seconds_count");
    const res = await on.app.inject({
      method: "POST",
      url: "/auth/v1/signup",
      headers: { apikey: on.app.deps.auth.keys.anonKey, "content-type": "application/json" },
      payload: { email: `metrics-${Date.now()}@users.hikaya.app`, password: "secret123" },
    });
    expect(res.statusCode).toBe(200);
    const after = await scrape();
    expect(sample(after, "hikaya_auth_hash_duration_seconds_count")).toBe(before + 1);
    expect(sample(after, "hikaya_auth_hash_waiting")).toBe(0);
    expect(sample(after, "hikaya_auth_hash_rejected_total")).toBe(0);
  });
});
