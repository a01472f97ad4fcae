import type { Story } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/**
 * Media in the family's language (issue 17): `?lang=ar` gives the Arabic video, thumbnail, question and
 * instruction videos where there are some and the English (default) ones where not; no `lang` is English.
 * The demo program seeds both languages.
 */

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  user = await createTestUser(t.app);
});
afterAll(() => t.close());

const get = async (url: string, who: TestUser | null = user) => {
  const res = await t.app.inject({ url, headers: who?.headers ?? {} });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const list = (query = "", who: TestUser | null = user) => get(`/api/stories${query}`, who) as Promise<Story[]>;

/** The object a signed link or public address names, without its query. */
const objectOf = (url: string | null | undefined) => url?.split("?")[0] ?? null;

describe("the story list in the family's language", () => {
  it("gives the Arabic thumbnail and video for lang=ar, the English ones for lang=en and without lang", async () => {
    const [arabic, english, none] = await Promise.all([list("?lang=ar"), list("?lang=en"), list()]);
    const first = (stories: Story[]) => stories[0] as Story;
    expect(first(arabic).thumbnailUrl).toBe(`/storage/v1/object/public/thumbnails/${first(arabic).id}-ar`);
    expect(first(english).thumbnailUrl).toBe(`/storage/v1/object/public/thumbnails/${first(english).id}`);
    expect(first(none).thumbnailUrl).toBe(first(english).thumbnailUrl);
    // The video is a signed link to a private object; the two languages are two different objects.
    expect(first(arabic).url).toMatch(/^\/storage\/v1\/object\/sign\/story-media\//);
    expect(objectOf(first(arabic).url)).not.toBe(objectOf(first(english).url));
    expect(objectOf(first(none).url)).toBe(objectOf(first(english).url));
    // Visitors get the thumbnail of their language too (the list is a teaser).
    const visitor = await list("?lang=ar", null);
    expect(visitor[0]?.thumbnailUrl).toBe(first(arabic).thumbnailUrl);
  });

  it("serves the Arabic video's bytes, not the English ones", async () => {
    const [arabic, english] = await Promise.all([list("?lang=ar"), list("?lang=en")]);
    const bytes = async (url: string | undefined) => {
      const res = await t.app.inject({ url: url ?? "" });
      expect(res.statusCode).toBe(200);
      return res.rawPayload;
    };
    const [ar, en] = await Promise.all([bytes(arabic[0]?.url), bytes(english[0]?.url)]);
    expect(ar.length).toBeGreaterThan(1000);
    expect(ar.equals(en)).toBe(false);
  });

  it("falls back to the English files for a story that has no Arabic ones", async () => {
    const story = (await list("?lang=ar"))[0] as Story;
    await t.app.deps.db
      .updateTable("stories")
      .set({ video_url_ar: null, thumbnail_path_ar: null, updated_at: new Date().toISOString() })
      .where("id", "=", story.id)
      .execute();
    const [arabic, english] = await Promise.all([list("?lang=ar"), list("?lang=en")]);
    expect(arabic[0]?.thumbnailUrl).toBe(english[0]?.thumbnailUrl);
    expect(objectOf(arabic[0]?.url)).toBe(objectOf(english[0]?.url));
  });

  it("falls back to the Arabic thumbnail for English when only that exists", async () => {
    const story = (await list("?lang=en"))[1] as Story;
    await t.app.deps.db
      .updateTable("stories")
      .set({ thumbnail_path: null, updated_at: new Date().toISOString() })
      .where("id", "=", story.id)
      .execute();
    expect((await list("?lang=en"))[1]?.thumbnailUrl).toBe(`/storage/v1/object/public/thumbnails/${story.id}-ar`);
  });

  it("gives one story in the language asked for", async () => {
    const story = (await list("?lang=ar"))[2] as Story;
    const arabic = (await get(`/api/stories/${story.id}?lang=ar`, null)) as Story;
    expect(arabic.thumbnailUrl).toBe(`/storage/v1/object/public/thumbnails/${story.id}-ar`);
    const english = (await get(`/api/stories/${story.id}`, null)) as Story;
    expect(english.thumbnailUrl).toBe(`/storage/v1/object/public/thumbnails/${story.id}`);
  });

  it("refuses a language it does not know with 400", async () => {
    const res = await t.app.inject({ url: "/api/stories?lang=fr", headers: user.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "validation_failed" });
  });
});

describe("question, instruction and landing videos in the family's language", () => {
  it("gives a story's question videos in Arabic for lang=ar (token API)", async () => {
    const story = (await list())[0] as Story;
    const questions = async (query: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: `/api/story/questions${query}`,
        headers: user.headers,
        payload: { story: story.id },
      });
      expect(res.statusCode).toBe(200);
      return (res.json() as { data: { url: string }[] }).data.map((q) => objectOf(q.url));
    };
    const [arabic, english, none] = await Promise.all([questions("?lang=ar"), questions("?lang=en"), questions("")]);
    expect(arabic.length).toBeGreaterThan(0);
    expect(arabic.every((url, i) => url !== english[i])).toBe(true);
    expect(none).toEqual(english);
  });

  it("gives the Arabic instruction and landing videos, and the English one where there is no Arabic", async () => {
    const arabic = await get("/api/instruction?location=Landing%20Page&lang=ar", null);
    const english = await get("/api/instruction?location=Landing%20Page", null);
    expect(arabic.media).toMatch(/^\/storage\/v1\/object\/public\/videos\/landing-ar\.mp4$/);
    expect(english.media).toMatch(/^\/storage\/v1\/object\/public\/videos\/landing\.mp4$/);
    const contents = await get("/api/get/contents?lang=ar", null);
    expect(contents.landingVideo).toBe(arabic.media);
    expect((await get("/api/get/contents", null)).landingVideo).toBe(english.media);

    const token = await t.app.inject({
      method: "POST",
      url: "/api/instruction?lang=ar",
      headers: user.headers,
      payload: { location: "Record Thoughts" },
    });
    expect(token.json().data.media).toMatch(/\/instructions\/record-thoughts-ar\.mp4$/);

    await t.app.deps.db.updateTable("instructions").set({ media_path_ar: null }).where("location", "=", "Edit Profile").execute();
    const fallback = await get("/api/instruction?location=Edit%20Profile&lang=ar", null);
    expect(fallback.media).toMatch(/\/instructions\/edit-profile\.mp4$/);
  });
});
