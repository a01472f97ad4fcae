import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { moveStoryMediaPrivate } from "./storage-upkeep.ts";
import { signMedia } from "./story-media.ts";

let t: TestApp;
let admin: TestUser;
let user: TestUser;
type StoryJson = { id: string; order: number; url?: string; watchStatus?: string };
type Envelope<T> = { code: number; data: T };

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  admin = await createTestUser(t.app, { admin: true });
  user = await createTestUser(t.app);
});
afterAll(() => t.close());

const SIGNED = /^\/storage\/v1\/object\/sign\/story-media\/[0-9a-f-]{36}\.(mp4|m4a)\?expires=\d+&signature=[\w-]+$/;

async function stories(headers: Record<string, string>): Promise<StoryJson[]> {
  return (await t.app.inject({ url: "/api/stories", headers })).json();
}
const get = (url: string) => t.app.inject({ url });
const tokenApi = (path: string, headers: Record<string, string>, story: string) =>
  t.app.inject({ method: "POST", url: `/api/${path}`, headers, payload: { story } });

describe("a story's media stay private until the story is unlocked", () => {
  it("stores story media under random names and keeps no public copy at the old guessable name", async () => {
    const rows = await t.app.deps.db.selectFrom("stories").select("video_url").execute();
    expect(rows.length).toBe(18);
    for (const row of rows)
      expect(row.video_url).toMatch(/^\/storage\/v1\/object\/authenticated\/story-media\/[0-9a-f-]{36}\.mp4$/);
    expect((await get("/storage/v1/object/public/videos/story-05.mp4")).statusCode).toBe(404);
    expect((await get("/storage/v1/object/public/question-media/s05-q1.mp4")).statusCode).toBe(404);
    expect((await get("/storage/v1/object/public/audio/answers/s01-q1-grandmother.m4a")).statusCode).toBe(404);
    // Public media stay public.
    expect((await get("/storage/v1/object/public/videos/landing.mp4")).statusCode).toBe(200);
    expect((await get("/storage/v1/object/public/audio/greeting.m4a")).statusCode).toBe(200);
  });

  it("answers 403 for a locked story's video, questions and answers, and 200 once the story before it is watched", async () => {
    const [first, second] = (await stories(user.headers)) as [StoryJson, StoryJson];
    expect(second.watchStatus).toBe("Locked");
    expect(second.url).toBeUndefined();
    expect((await t.app.inject({ url: `/api/stories/${second.id}`, headers: user.headers })).statusCode).toBe(403);
    expect((await tokenApi("story/questions", user.headers, second.id)).json().code).toBe(403);
    expect((await tokenApi("story/questions/answers", user.headers, second.id)).json().code).toBe(403);
    // The stored address itself opens nothing, with or without a token.
    const ref = await t.app.deps.db
      .selectFrom("stories")
      .select("video_url")
      .where("id", "=", second.id)
      .executeTakeFirstOrThrow();
    expect((await t.app.inject({ url: ref.video_url, headers: user.headers })).statusCode).toBe(404);
    expect((await get(ref.video_url.replace("/authenticated/story-media/", "/public/videos/"))).statusCode).toBe(404);
    expect((await get(ref.video_url.replace("/authenticated/", "/sign/"))).statusCode).toBe(403);

    expect(first.url).toMatch(SIGNED);
    const video = await get(first.url as string);
    expect(video.statusCode).toBe(200);
    expect(video.headers["content-type"]).toBe("video/mp4");
    const watched = await t.app.inject({
      method: "POST",
      url: `/api/users/${user.id}/watchStory/${first.id}`,
      headers: user.headers,
    });
    expect(watched.statusCode).toBe(200);

    const opened = (await t.app.inject({ url: `/api/stories/${second.id}`, headers: user.headers })).json() as StoryJson;
    expect(opened.url).toMatch(SIGNED);
    const range = await t.app.inject({ url: opened.url as string, headers: { range: "bytes=0-9" } });
    expect(range.statusCode).toBe(206);
    const questions = (await tokenApi("story/questions", user.headers, second.id)).json() as Envelope<{ url: string }[]>;
    expect(questions.data.length).toBeGreaterThan(0);
    for (const q of questions.data) {
      expect(q.url).toMatch(SIGNED);
      expect((await get(q.url)).statusCode).toBe(200);
    }
    const answers = (await tokenApi("story/questions/answers", user.headers, second.id)).json() as Envelope<{ audio: string }[]>;
    expect(answers.data.length).toBeGreaterThan(0);
    for (const a of answers.data) {
      expect(a.audio).toMatch(SIGNED);
      const audio = await get(a.audio);
      expect(audio.statusCode).toBe(200);
      expect(audio.headers["content-type"]).toBe("audio/mp4");
    }
  });

  it("lets an admin play every story's media, locked or not", async () => {
    const all = await stories(admin.headers);
    const last = all.at(-1) as StoryJson;
    expect(last.watchStatus).toBe("Locked");
    expect(last.url).toMatch(SIGNED);
    expect((await get(last.url as string)).statusCode).toBe(200);
    const questions = (await t.app.inject({ url: `/api/admin/stories/${last.id}/questions`, headers: admin.headers })).json();
    expect(questions[0].media).toMatch(SIGNED);
    expect((await get(questions[0].media)).statusCode).toBe(200);
  });

  it("refuses a signed link once expired, and any link whose file, time or signature was changed", async () => {
    const [ref] = await t.app.deps.db.selectFrom("stories").select("video_url").where("position", "=", 3).execute();
    const path = ref?.video_url as string;
    const hour = 3600_000;
    expect((await get(signMedia(t.app.deps, path, Date.now() - hour + 60_000))).statusCode).toBe(200);
    const expired = await get(signMedia(t.app.deps, path, Date.now() - hour - 11 * 60_000));
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({ code: "forbidden" });

    const link = signMedia(t.app.deps, path);
    const tamperedSignature = link.replace(/signature=(.)/, (_m, c: string) => `signature=${c === "A" ? "B" : "A"}`);
    expect((await get(tamperedSignature)).statusCode).toBe(403);
    const later = link.replace(/expires=(\d+)/, (_m, n: string) => `expires=${Number(n) + 86_400}`);
    expect((await get(later)).statusCode).toBe(403);
    const other = await t.app.deps.db
      .selectFrom("stories")
      .select("video_url")
      .where("position", "=", 4)
      .executeTakeFirstOrThrow();
    const otherKey = other.video_url.split("/").pop() as string;
    expect((await get(link.replace(/story-media\/[^?]+/, `story-media/${otherKey}`))).statusCode).toBe(403);
    expect((await get(link.split("?")[0] as string)).statusCode).toBe(403);
    // A signed link opens only the private story-media bucket, never recordings.
    expect((await get(link.replace("/sign/story-media/", "/sign/recordings/"))).statusCode).toBe(400);
  });

  it("moves media stored before they were private into private storage under new names", async () => {
    await t.app.deps.storage.put("videos", "story-legacy.mp4", Readable.from([Buffer.from("old video")]), "video/mp4");
    const story = await t.app.deps.db.selectFrom("stories").select("id").where("position", "=", 7).executeTakeFirstOrThrow();
    await t.app.deps.db
      .updateTable("stories")
      .set({ video_url: "/storage/v1/object/public/videos/story-legacy.mp4" })
      .where("id", "=", story.id)
      .execute();
    expect((await get("/storage/v1/object/public/videos/story-legacy.mp4")).statusCode).toBe(200);

    expect(await moveStoryMediaPrivate(t.app.deps, t.app.log)).toBe(1);
    const row = await t.app.deps.db
      .selectFrom("stories")
      .select("video_url")
      .where("id", "=", story.id)
      .executeTakeFirstOrThrow();
    expect(row.video_url).toMatch(/^\/storage\/v1\/object\/authenticated\/story-media\/[0-9a-f-]{36}\.mp4$/);
    expect((await get("/storage/v1/object/public/videos/story-legacy.mp4")).statusCode).toBe(404);
    const played = await get(signMedia(t.app.deps, row.video_url));
    expect(played.statusCode).toBe(200);
    expect(played.body).toBe("old video");
    expect(await moveStoryMediaPrivate(t.app.deps, t.app.log)).toBe(0);
  });
});
