import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { watchStatusOf } from "./watch-status.ts";

let t: TestApp;
let user: TestUser;
let admin: TestUser;
let ids: string[];

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  user = await createTestUser(t.app);
  admin = await createTestUser(t.app, { admin: true });
  ids = (await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").execute()).map((s) => s.id);
});
afterAll(() => t.close());

const watch = (storyId: string, as: TestUser = user, userId = as.id) =>
  t.app.inject({ method: "POST", url: `/api/users/${userId}/watchStory/${storyId}`, headers: as.headers });

describe("watch status rule (spec section 4)", () => {
  it.each([
    [1, 0, "Active"],
    [2, 0, "Locked"],
    [1, 1, "Deleted"],
    [2, 1, "Active"],
    [3, 1, "Locked"],
    [5, 9, "Deleted"],
  ] as const)("order %i with lastWatched %i is %s", (order, last, status) => {
    expect(watchStatusOf(order, last)).toBe(status);
  });
});

describe("POST /api/users/{id}/watchStory/{storyId}", () => {
  it("records in order, accepts 'me', and is idempotent under concurrent calls", async () => {
    const results = await Promise.all([watch(ids[0] as string), watch(ids[0] as string), watch(ids[0] as string)]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(results.filter((r) => r.json().newlyWatched)).toHaveLength(1);
    const viaMe = await watch(ids[1] as string, user, "me");
    expect(viaMe.statusCode).toBe(200);
    expect(viaMe.json()).toMatchObject({ order: 2, lastWatchedStoryId: 2 });
    expect(viaMe.json().watchedStories.map((s: { order: number }) => s.order)).toEqual([1, 2]);
    const rows = await t.app.deps.db.selectFrom("progress").selectAll().where("user_id", "=", user.id).execute();
    expect(rows).toHaveLength(2);
  });

  it("refuses skipping ahead (409), unknown stories (404), other people (403) and visitors (401)", async () => {
    const skip = await watch(ids[5] as string);
    expect(skip.statusCode).toBe(409);
    expect(skip.json()).toMatchObject({ code: "story_out_of_order", details: { lastWatchedStoryId: 2, order: 6 } });
    expect((await watch("no-such-story")).statusCode).toBe(404);
    expect((await watch(ids[0] as string, admin, user.id)).statusCode).toBe(403);
    const visitor = await t.app.inject({ method: "POST", url: `/api/users/${user.id}/watchStory/${ids[0]}` });
    expect(visitor.statusCode).toBe(401);
    const rows = await t.app.deps.db.selectFrom("progress").selectAll().where("user_id", "=", user.id).execute();
    expect(rows).toHaveLength(2);
  });

  it("keeps the frontier on the stories watched when an operator deletes one before it", async () => {
    // The user watched 1 and 2; deleting story 1 moves story 2 to order 1, so the next open one is the new 2.
    const del = await t.app.inject({ method: "DELETE", url: `/api/stories?id=${ids[0]}`, headers: admin.headers });
    expect(del.statusCode).toBe(200);
    const list = (await t.app.inject({ url: "/api/stories", headers: user.headers })).json() as {
      id: string;
      watchStatus: string;
    }[];
    expect(list.slice(0, 3).map((s) => s.watchStatus)).toEqual(["Deleted", "Active", "Locked"]);
    expect(list[0]?.id).toBe(ids[1]);
    const profile = (await t.app.inject({ url: "/api/profile", headers: user.headers })).json();
    expect(profile.lastWatchedStoryId).toBe(1);
  });
});

describe("POST /api/users/{id}/position/{storyId} (issue 38: resume on any device)", () => {
  const place = (storyId: string, body: Record<string, unknown>, as: TestUser = fresh, userId = "me") =>
    t.app.inject({ method: "POST", url: `/api/users/${userId}/position/${storyId}`, headers: as.headers, payload: body });
  const storyAnswer = async (storyId: string, as: TestUser = fresh) =>
    (await t.app.inject({ url: `/api/stories/${storyId}`, headers: as.headers })).json();
  let fresh: TestUser;
  let open: string[];
  beforeAll(async () => {
    fresh = await createTestUser(t.app);
    // The stories as they stand after the tests above deleted one.
    open = (await t.app.deps.db.selectFrom("stories").select("id").orderBy("position").execute()).map((s) => s.id);
  });

  it("keeps the second the person stopped at, and the story's answer carries it", async () => {
    expect(await storyAnswer(open[0] as string)).toMatchObject({ positionSeconds: 0 });
    const saved = await place(open[0] as string, { seconds: 17 });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ storyId: open[0], seconds: 17 });
    await place(open[0] as string, { seconds: 42 });
    expect(await storyAnswer(open[0] as string)).toMatchObject({ positionSeconds: 42 });
    // Someone else's position is their own.
    expect(await storyAnswer(open[0] as string, user)).toMatchObject({ positionSeconds: 0 });
  });

  it("refuses a locked story, someone else, a bad second and visitors, and changes nothing", async () => {
    const locked = await place(open[4] as string, { seconds: 5 });
    expect(locked.statusCode).toBe(403);
    expect(locked.json().code).toBe("story_locked");
    expect((await place(open[0] as string, { seconds: 5 }, admin, fresh.id)).statusCode).toBe(403);
    for (const seconds of [-1, 1.5, "ten", 7 * 3600]) {
      const bad = await place(open[0] as string, { seconds });
      expect(bad.statusCode, String(seconds)).toBe(400);
      expect(bad.json().code).toBe("validation_failed");
    }
    expect((await place("no-such-story", { seconds: 5 })).statusCode).toBe(404);
    const visitor = await t.app.inject({ method: "POST", url: `/api/users/me/position/${open[0]}`, payload: { seconds: 1 } });
    expect(visitor.statusCode).toBe(401);
    const rows = await t.app.deps.db.selectFrom("playback_positions").selectAll().where("user_id", "=", fresh.id).execute();
    expect(rows.map((r) => [r.story_id, r.seconds])).toEqual([[open[0], 42]]);
  });
});
