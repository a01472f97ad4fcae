import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let admin: TestUser;
let user: TestUser;
type StoryJson = {
  id: string;
  _id: string;
  order: number;
  url?: string;
  watchStatus?: string;
  title: string;
  titleB: string;
  thumbnailUrl: string | null;
};

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  user = await createTestUser(t.app);
});
afterAll(() => t.close());

const list = async (headers?: Record<string, string>) => {
  const res = await t.app.inject({ url: "/api/stories", headers });
  expect(res.statusCode).toBe(200);
  return res.json() as StoryJson[];
};
const orders = async () => (await list(admin.headers)).map((s) => s.order);

describe("stories for visitors and signed-in people", () => {
  it("gives visitors titles and thumbnails only, in order", async () => {
    const stories = await list();
    expect(stories.length).toBe(18);
    expect(stories.map((s) => s.order)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    for (const s of stories) {
      expect(s.url).toBeUndefined();
      expect(s.watchStatus).toBeUndefined();
      expect(s._id).toBe(s.id);
      expect(s.titleB).toBeTruthy();
    }
  });

  it("computes watchStatus from the furthest watched story and hides locked videos", async () => {
    const before = await list(user.headers);
    expect(before[0]?.watchStatus).toBe("Active");
    // Story videos are private: a signed link, never a public address (storage/story-media.ts).
    expect(before[0]?.url).toMatch(/^\/storage\/v1\/object\/sign\/story-media\/[0-9a-f-]{36}\.mp4\?expires=\d+&signature=/);
    expect(before.slice(1).every((s) => s.watchStatus === "Locked" && s.url === undefined)).toBe(true);

    const first = before[0] as StoryJson;
    const res = await t.app.inject({
      method: "POST",
      url: `/api/users/${user.id}/watchStory/${first.id}`,
      headers: user.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ order: 1, newlyWatched: true, lastWatchedStoryId: 1 });

    const after = await list(user.headers);
    expect(after.map((s) => s.watchStatus).slice(0, 3)).toEqual(["Deleted", "Active", "Locked"]);
    expect(after[1]?.url).toBeTruthy();
  });

  it("watching again changes nothing; out of order is refused with 409", async () => {
    const stories = await list(user.headers);
    const again = await t.app.inject({
      method: "POST",
      url: `/api/users/${user.id}/watchStory/${stories[0]?.id}`,
      headers: user.headers,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ newlyWatched: false, lastWatchedStoryId: 1 });
    const skip = await t.app.inject({
      method: "POST",
      url: `/api/users/${user.id}/watchStory/${stories[5]?.id}`,
      headers: user.headers,
    });
    expect(skip.statusCode).toBe(409);
    expect(skip.json().code).toBe("story_out_of_order");
    const profile = await t.app.inject({ url: "/api/profile", headers: user.headers });
    expect(profile.json().watchedStories).toHaveLength(1);
  });

  it("refuses a locked story's detail, questions and answers with story_locked", async () => {
    const stories = await list(user.headers);
    const locked = stories.find((s) => s.watchStatus === "Locked") as StoryJson;
    const detail = await t.app.inject({ url: `/api/stories/${locked.id}`, headers: user.headers });
    expect(detail.statusCode).toBe(403);
    expect(detail.json().code).toBe("story_locked");
    for (const url of ["/api/story/questions", "/api/story/questions/answers"]) {
      const res = await t.app.inject({ method: "POST", url, headers: user.headers, payload: { story: locked.id } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 403, errorCode: "story_locked" });
      expect(typeof res.json().data).toBe("string");
    }
    const adminView = await t.app.inject({ url: `/api/stories/${locked.id}`, headers: admin.headers });
    expect(adminView.statusCode).toBe(200);
    expect(adminView.json().url).toBeTruthy();
  });

  it("hands an open story's questions and answers in the envelope, in order", async () => {
    const open = (await list(user.headers))[1] as StoryJson;
    const q = await t.app.inject({
      method: "POST",
      url: "/api/story/questions",
      headers: user.headers,
      payload: { story: open.id },
    });
    expect(q.statusCode).toBe(200);
    const questions = q.json().data as { _id: string; url: string; index: number }[];
    expect(q.json().code).toBe(200);
    expect(questions.length).toBeGreaterThan(0);
    expect(questions.map((x) => x.index)).toEqual([...questions.map((x) => x.index)].sort((a, b) => a - b));
    const a = await t.app.inject({
      method: "POST",
      url: "/api/story/questions/answers",
      headers: { "x-auth-token": user.token },
      payload: { story: open.id },
    });
    expect(a.statusCode).toBe(200);
    const answers = a.json().data as { question: string; audio: string; character: Record<string, string> }[];
    expect(answers.length).toBeGreaterThan(0);
    expect(questions.map((x) => x._id)).toContain(answers[0]?.question);
    expect(answers[0]?.character).toMatchObject({
      nameOfFamilyMember: expect.any(String),
      nameOfFamilyMemberAr: expect.any(String),
    });
  });
});

describe("admin writes keep orders unique and contiguous", () => {
  it("creates a story at an order, shifting the rest down", async () => {
    await t.app.deps.storage.put("videos", "x.mp4", Readable.from([Buffer.from("video")]), "video/mp4");
    const res = await t.app.inject({
      method: "POST",
      url: "/api/stories",
      headers: admin.headers,
      payload: { order: 2, url: "/storage/v1/object/public/videos/x.mp4", title: "New", subtitle: "Sub", titleB: "جديد" },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json() as StoryJson;
    expect(created.order).toBe(2);
    // The uploaded public file became a private copy under a random name, not served publicly.
    expect(created.url).toMatch(/^\/storage\/v1\/object\/sign\/story-media\/[0-9a-f-]{36}\.mp4\?/);
    const copy = created.url?.split("?")[0]?.replace("/object/sign/story-media/", "/object/public/videos/") as string;
    expect((await t.app.inject({ url: copy })).statusCode).toBe(404);
    // No thumbnail was given and none is stored: no address that would answer 404 (the app shows its placeholder).
    expect(created.thumbnailUrl).toBeNull();
    expect(await orders()).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    const again = await t.app.inject({ url: `/api/stories/${created.id}`, headers: admin.headers });
    expect(again.json().titleB).toBe("جديد");
  });

  it("moves a story with PUT and closes the gap on DELETE", async () => {
    const stories = await list(admin.headers);
    const second = stories[1] as StoryJson;
    const put = await t.app.inject({
      method: "PUT",
      url: `/api/stories?id=${second.id}`,
      headers: admin.headers,
      payload: { order: 10, subtitle: "moved" },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ order: 10, subtitle: "moved" });
    expect(await orders()).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    const del = await t.app.inject({ method: "DELETE", url: `/api/stories?id=${second.id}`, headers: admin.headers });
    expect(del.statusCode).toBe(200);
    expect(await orders()).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    const gone = await t.app.inject({ method: "DELETE", url: `/api/stories?id=${second.id}`, headers: admin.headers });
    expect(gone.statusCode).toBe(404);
  });

  it("reorders every story in one go and refuses a partial list", async () => {
    const ids = (await list(admin.headers)).map((s) => s.id);
    const reversed = [...ids].reverse();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/stories/reorder",
      headers: admin.headers,
      payload: { ids: reversed },
    });
    expect(res.statusCode).toBe(200);
    expect((await list(admin.headers)).map((s) => s.id)).toEqual(reversed);
    const partial = await t.app.inject({
      method: "POST",
      url: "/api/stories/reorder",
      headers: admin.headers,
      payload: { ids: ids.slice(1) },
    });
    expect(partial.statusCode).toBe(400);
    const dup = await t.app.inject({
      method: "POST",
      url: "/api/stories/reorder",
      headers: admin.headers,
      payload: { ids: [...ids.slice(1), ids[1]] },
    });
    expect(dup.statusCode).toBe(400);
    expect((await list(admin.headers)).map((s) => s.id)).toEqual(reversed);
  });

  it("keeps orders unique and contiguous under concurrent writes (a lost race is a clean 409)", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.app.inject({
          method: "POST",
          url: "/api/stories",
          headers: admin.headers,
          payload: { order: 1 + ((i * 7) % 18), url: "https://vimeo.com/1", title: `Race ${i}` },
        }),
      ),
    );
    for (const r of results) expect([201, 409]).toContain(r.statusCode);
    const created = results.filter((r) => r.statusCode === 201).length;
    expect(created).toBeGreaterThan(0);
    const all = await orders();
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    const stories = await list(admin.headers);
    for (const s of stories.filter((x) => x.title.startsWith("Race "))) {
      const del = await t.app.inject({ method: "DELETE", url: `/api/stories?id=${s.id}`, headers: admin.headers });
      expect(del.statusCode).toBe(200);
    }
    expect(await orders()).toEqual(Array.from({ length: all.length - created }, (_, i) => i + 1));
  });

  it("refuses bad input with 400 and leaves the program as it was", async () => {
    const before = await list(admin.headers);
    for (const payload of [
      {},
      { title: "x" },
      { title: 5, url: "/x" },
      { title: "x", url: "/x", order: -1 },
      { title: "x", url: "/x", order: "one" },
    ]) {
      const res = await t.app.inject({ method: "POST", url: "/api/stories", headers: admin.headers, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("validation_failed");
    }
    const malformed = await t.app.inject({
      method: "POST",
      url: "/api/stories",
      headers: { ...admin.headers, "content-type": "application/json" },
      payload: "{not json",
    });
    expect(malformed.statusCode).toBe(400);
    const mismatch = await t.app.inject({
      method: "PUT",
      url: `/api/stories?id=${before[0]?.id}`,
      headers: admin.headers,
      payload: { id: "other" },
    });
    expect(mismatch.statusCode).toBe(400);
    const noId = await t.app.inject({ method: "PUT", url: "/api/stories", headers: admin.headers, payload: { title: "x" } });
    expect(noId.statusCode).toBe(400);
    const unknown = await t.app.inject({
      method: "PUT",
      url: "/api/stories?id=nope",
      headers: admin.headers,
      payload: { title: "x" },
    });
    expect(unknown.statusCode).toBe(404);
    expect(await list(admin.headers)).toEqual(before);
  });
});
