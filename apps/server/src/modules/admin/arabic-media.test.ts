import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AdminMedia, AdminQuestion, AdminStory, AuditEntry, Story } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../config.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/** The console saves an Arabic file beside each English one (issue 17), and families get it at once. */

const DEMO = join(REPO_ROOT, "apps/server/demo/files");
const VIDEO = readFileSync(join(DEMO, "videos/story-01.mp4"));
const VIDEO_AR = readFileSync(join(DEMO, "videos/story-01-ar.mp4"));
const IMAGE = readFileSync(join(DEMO, "thumbnails/story-01-ar.jpg"));

function multipart(file: Buffer, filename: string, contentType: string) {
  const boundary = `----hikaya${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, file, tail]), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

let t: TestApp;
let admin: TestUser;
let family: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
  family = await createTestUser(t.app);
});
afterAll(async () => t?.close());

async function upload(purpose: string, file: Buffer, name: string, type: string): Promise<string> {
  const body = multipart(file, name, type);
  const res = await t.app.inject({
    method: "POST",
    url: `/api/admin/uploads/${purpose}`,
    headers: { ...admin.headers, ...body.headers },
    payload: body.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().path;
}

async function send<T>(method: "PUT" | "POST" | "DELETE", url: string, payload?: object): Promise<T> {
  const res = await t.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const familyList = async (lang: "en" | "ar") =>
  (await t.app.inject({ url: `/api/stories?lang=${lang}`, headers: family.headers })).json() as Story[];
const objectOf = (url: string | null | undefined) => url?.split("?")[0] ?? null;

async function auditActions(): Promise<string[]> {
  const res = await t.app.inject({ url: "/api/admin/audit?limit=50", headers: admin.headers });
  return (res.json().entries as AuditEntry[]).map((e) => e.action);
}

describe("a story's Arabic video and thumbnail", () => {
  let story: AdminStory;

  beforeAll(async () => {
    const videoUrl = await upload("story-video", VIDEO, "v.mp4", "video/mp4");
    story = await send<AdminStory>("POST", "/api/admin/stories", { titleEn: "Harvest", titleAr: "الحصاد", videoUrl });
    expect(story).toMatchObject({ videoUrlAr: null, thumbnailUrlAr: null });
  });

  it("saves an Arabic video that Arabic families get at once, and English families do not", async () => {
    const before = await familyList("ar");
    expect(objectOf(before[0]?.url)).toBe(objectOf((await familyList("en"))[0]?.url));

    const uploaded = await upload("story-video", VIDEO_AR, "ar.mp4", "video/mp4");
    const saved = await send<AdminStory>("PUT", `/api/admin/stories/${story.id}/video/ar`, { videoUrl: uploaded });
    expect(saved.videoUrlAr).toMatch(/^\/storage\/v1\/object\/sign\/story-media\/[0-9a-f-]{36}\.mp4\?expires=/);
    // Saved on its own: the story's text version does not move, so an editor open elsewhere is not made stale.
    expect(saved.version).toBe(story.version);

    const [arabic, english] = await Promise.all([familyList("ar"), familyList("en")]);
    expect(objectOf(arabic[0]?.url)).toBe(objectOf(saved.videoUrlAr));
    expect(objectOf(english[0]?.url)).toBe(objectOf(saved.videoUrl));
    const bytes = await t.app.inject({ url: arabic[0]?.url ?? "" });
    expect(bytes.rawPayload.equals(VIDEO_AR)).toBe(true);
  });

  it("takes a YouTube link, and null removes the Arabic video (families fall back to English)", async () => {
    const link = "https://youtu.be/abc123";
    const withLink = await send<AdminStory>("PUT", `/api/admin/stories/${story.id}/video/ar`, { videoUrl: link });
    expect(withLink.videoUrlAr).toBe(link);
    expect((await familyList("ar"))[0]?.url).toBe(link);

    const removed = await send<AdminStory>("PUT", `/api/admin/stories/${story.id}/video/ar`, { videoUrl: null });
    expect(removed.videoUrlAr).toBeNull();
    expect(objectOf((await familyList("ar"))[0]?.url)).toBe(objectOf(removed.videoUrl));
  });

  it("refuses a file that is not an upload, and an unknown story", async () => {
    const bad = await t.app.inject({
      method: "PUT",
      url: `/api/admin/stories/${story.id}/video/ar`,
      headers: admin.headers,
      payload: { videoUrl: "https://example.com/x.mp4" },
    });
    expect(bad.statusCode).toBe(400);
    const missing = await t.app.inject({
      method: "PUT",
      url: "/api/admin/stories/00000000-0000-4000-8000-000000000000/video/ar",
      headers: admin.headers,
      payload: { videoUrl: null },
    });
    expect(missing.statusCode).toBe(404);
  });

  it("stores the Arabic thumbnail under the story id and -ar, and removing it falls back to English", async () => {
    const body = multipart(IMAGE, "ar.jpg", "image/jpeg");
    const res = await t.app.inject({
      method: "PUT",
      url: `/api/admin/stories/${story.id}/thumbnail/ar`,
      headers: { ...admin.headers, ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const saved = res.json() as AdminStory;
    expect(saved.thumbnailUrlAr).toMatch(new RegExp(`^/storage/v1/object/public/thumbnails/${story.id}-ar\\?v=\\d+$`));
    expect(saved.thumbnailUrl).toBeNull();
    const file = await t.app.inject({ url: `/storage/v1/object/public/thumbnails/${story.id}-ar` });
    expect(file.rawPayload.equals(IMAGE)).toBe(true);
    expect((await familyList("ar"))[0]?.thumbnailUrl).toBe(saved.thumbnailUrlAr);
    // The console's list carries both pictures; the Arabic console picks with the families' rule (admin/logic.ts).
    const listed = await t.app.inject({ url: "/api/admin/stories", headers: admin.headers });
    expect((listed.json() as AdminStory[]).find((s) => s.id === story.id)?.thumbnailUrlAr).toBe(saved.thumbnailUrlAr);

    const removed = await send<AdminStory>("DELETE", `/api/admin/stories/${story.id}/thumbnail/ar`);
    expect(removed.thumbnailUrlAr).toBeNull();
    expect((await familyList("ar"))[0]?.thumbnailUrl).toBeNull();
    // The removed picture's file goes with it.
    expect((await t.app.inject({ url: `/storage/v1/object/public/thumbnails/${story.id}-ar` })).statusCode).toBe(404);
  });

  it("records each change in the audit log", async () => {
    expect(await auditActions()).toEqual(expect.arrayContaining(["story.video_ar", "story.thumbnail_ar"]));
  });
});

describe("a question's and an instruction's Arabic video", () => {
  it("saves and removes a question's Arabic video; Arabic families get it, English ones the English one", async () => {
    const videoUrl = await upload("story-video", VIDEO, "v.mp4", "video/mp4");
    const story = await send<AdminStory>("POST", "/api/admin/stories", { titleEn: "Snow", titleAr: "الثلج", videoUrl });
    const media = await upload("question-media", VIDEO, "q.mp4", "video/mp4");
    const [question] = await send<AdminQuestion[]>("POST", `/api/admin/stories/${story.id}/questions`, { media });
    expect(question?.mediaAr).toBeNull();

    const mediaAr = await upload("question-media", VIDEO_AR, "q-ar.mp4", "video/mp4");
    const [saved] = await send<AdminQuestion[]>("PUT", `/api/admin/questions/${question?.id}/media/ar`, { media: mediaAr });
    expect(saved?.mediaAr).toMatch(/^\/storage\/v1\/object\/sign\/story-media\//);

    const questions = async (lang: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: `/api/story/questions?lang=${lang}`,
        headers: admin.headers,
        payload: { story: story.id },
      });
      return (res.json() as { data: { url: string }[] }).data.map((q) => objectOf(q.url));
    };
    expect(await questions("ar")).toEqual([objectOf(saved?.mediaAr)]);
    expect(await questions("en")).toEqual([objectOf(saved?.media)]);

    const [removed] = await send<AdminQuestion[]>("PUT", `/api/admin/questions/${question?.id}/media/ar`, { media: null });
    expect(removed?.mediaAr).toBeNull();
    expect(await questions("ar")).toEqual([objectOf(saved?.media)]);
    expect(await auditActions()).toContain("question.media_ar");
  });

  it("saves the landing video in Arabic beside the English one, and needs the English one first", async () => {
    const refused = await t.app.inject({
      method: "PUT",
      url: "/api/admin/instructions/Landing%20Page/ar",
      headers: admin.headers,
      payload: { media: await upload("instruction", VIDEO_AR, "l-ar.mp4", "video/mp4") },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: "validation_failed" });

    const english = await upload("instruction", VIDEO, "l.mp4", "video/mp4");
    await send<AdminMedia>("PUT", "/api/admin/instructions/Landing%20Page", { media: english });
    const arabic = await upload("instruction", VIDEO_AR, "l-ar.mp4", "video/mp4");
    const media = await send<AdminMedia>("PUT", "/api/admin/instructions/Landing%20Page/ar", { media: arabic });
    expect(media.instructions.find((i) => i.location === "Landing Page")).toMatchObject({ media: english, mediaAr: arabic });

    const family = async (lang: string) =>
      (await t.app.inject({ url: `/api/instruction?location=Landing%20Page&lang=${lang}` })).json().media;
    expect(await family("ar")).toBe(arabic);
    expect(await family("en")).toBe(english);
    expect(await auditActions()).toContain("instruction.media_ar");
  });
});
