import { randomUUID } from "node:crypto";
import type { AdminAnalytics, AdminStory } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

async function story(title: string, published: boolean): Promise<AdminStory> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/admin/stories",
    headers: admin.headers,
    payload: { titleEn: title, titleAr: `عربي ${title}`, videoUrl: "https://youtu.be/abc", published },
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function watchAndRecord(userId: string, s: AdminStory) {
  const now = new Date().toISOString();
  await t.app.deps.db
    .insertInto("progress")
    .values({ user_id: userId, story_id: s.id, story_position: s.order, watched_at: now })
    .execute();
  await t.app.deps.db
    .insertInto("recordings")
    .values({
      id: randomUUID(),
      user_id: userId,
      story_id: s.id,
      question_index: null,
      object_key: `${userId}/${randomUUID()}.wav`,
      content_type: "audio/wav",
      size: 44,
      duration_seconds: null,
      created_at: now,
    })
    .execute();
}

describe("GET /api/admin/analytics", () => {
  it("counts the stories families see: a draft, and what was watched or recorded on it, is left out", async () => {
    const published = await story("Published", true);
    const draft = await story("Draft", false);
    expect(draft.published).toBe(false);
    const family = await createTestUser(t.app);
    await watchAndRecord(family.id, published);
    // A draft has no family activity of its own; an operator previewing it (admins may open drafts) leaves some.
    await watchAndRecord(admin.id, draft);

    const today = new Date().toISOString().slice(0, 10);
    const res = await t.app.inject({
      method: "GET",
      url: `/api/admin/analytics?from=${today}&to=${today}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(200);
    const body: AdminAnalytics = res.json();
    expect(body.funnel.filter((f) => f.step === "story_watched")).toEqual([{ step: "story_watched", storyOrder: 1, count: 1 }]);
    expect(body.recordingsPerStory).toEqual([
      { storyId: published.id, order: 1, titleEn: "Published", titleAr: "عربي Published", count: 1 },
    ]);
  });

  it("leaves operators out of the sign-ups and out of People: only families count", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const signups = async () => {
      const res = await t.app.inject({
        method: "GET",
        url: `/api/admin/analytics?from=${today}&to=${today}`,
        headers: admin.headers,
      });
      return (res.json() as AdminAnalytics).signupsPerDay.reduce((sum, d) => sum + d.count, 0);
    };
    const people = async () =>
      (
        (
          await t.app.inject({ method: "GET", url: "/api/users?limit=100&offset=0&families=true", headers: admin.headers })
        ).json() as {
          items: { id: string }[];
        }
      ).items.map((u) => u.id);
    const before = await signups();
    const family = await createTestUser(t.app);
    const facilitator = await createTestUser(t.app, { role: "facilitator" });
    const otherAdmin = await createTestUser(t.app, { admin: true });
    expect(await signups()).toBe(before + 1);
    const listed = await people();
    expect(listed).toContain(family.id);
    expect(listed).not.toContain(facilitator.id);
    expect(listed).not.toContain(otherAdmin.id);
    expect(listed).not.toContain(admin.id);
    // The spec's plain GET /users still lists everyone, operators marked isAdmin.
    const everyone = (await t.app.inject({ method: "GET", url: "/api/users?limit=100", headers: admin.headers })).json();
    expect(everyone.items.map((u: { id: string }) => u.id)).toContain(facilitator.id);
  });
});
