import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CAPTIONS_MAX_BYTES, type MediaStream, STORY_MEDIA_BUCKET } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { CookieJar } from "./cdn.test-helpers.ts";
import { loadBinaries } from "./ffmpeg.ts";
import { mediaWorkerOf } from "./worker.ts";

/**
 * Issue 29, WCAG 2.2 1.2.2: a story video's captions per language, saved from the console as WebVTT text, listed
 * with the video's stream and served under the video's own cookie (a locked story's captions are refused).
 */

const EN = "WEBVTT\n\n00:00.000 --> 00:01.000\nOnce upon a time\n";
const AR = "\uFEFFWEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\nكان يا ما كان\r\n";

let t: TestApp;
let admin: TestUser;
let family: TestUser;
let dir: string;
const stories: { id: string; adminUrl: string }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  // Captions need no processing; the worker would only spend the machine on transcoding.
  await mediaWorkerOf(t.app)?.stop();
  admin = await createTestUser(t.app, { admin: true });
  family = await createTestUser(t.app);
  dir = await mkdtemp(join(tmpdir(), "captions-test-"));
  const { ffmpeg } = await loadBinaries();
  await promisify(execFile)(ffmpeg, [
    ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=320x240:rate=10"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", join(dir, "clip.mp4")],
  ]);
  const clip = await readFile(join(dir, "clip.mp4"));
  for (const title of ["Captioned", "Locked"]) {
    const boundary = `----captions${Math.random().toString(16).slice(2)}`;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;
    const up = await t.app.inject({
      method: "POST",
      url: "/api/admin/uploads/story-video",
      headers: { ...admin.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([Buffer.from(head), clip, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    });
    expect(up.statusCode, up.body).toBe(200);
    const created = await t.app.inject({
      method: "POST",
      url: "/api/admin/stories",
      headers: admin.headers,
      payload: { titleEn: title, titleAr: title, videoUrl: up.json().path },
    });
    expect(created.statusCode, created.body).toBe(200);
    const story = (await t.app.inject({ url: `/api/admin/stories/${created.json().id}`, headers: admin.headers })).json();
    stories.push({ id: story.id, adminUrl: story.videoUrl });
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const save = (src: string, lang: string, text: string, user: TestUser = admin) =>
  t.app.inject({ method: "PUT", url: "/api/admin/media/captions", headers: user.headers, payload: { src, lang, text } });
/** One browser for the family and the console: each stream's answer sets the cookie its captions are fetched with. */
const jar = new CookieJar();
const get = (url: string) => t.app.inject({ url, headers: jar.headersFor(url) });
const streamOf = async (src: string) => {
  const res = await get(`/api/media/stream?src=${encodeURIComponent(src)}`);
  jar.take(res.headers["set-cookie"]);
  return res.json() as MediaStream;
};
const familyStories = async () =>
  (await t.app.inject({ url: "/api/stories", headers: family.headers })).json() as { id: string; url?: string }[];

describe("a story video's captions", { timeout: 30_000 }, () => {
  it("are saved per language and listed with the video's stream for the family, before any processing", async () => {
    const [story] = stories;
    const saved = await save(story?.adminUrl as string, "en", EN);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((saved.json() as MediaStream).captions?.map((c) => c.lang)).toEqual(["en"]);
    expect((await save(story?.adminUrl as string, "ar", AR)).statusCode).toBe(200);

    const [open] = await familyStories();
    expect(open?.id).toBe(story?.id);
    const stream = await streamOf(open?.url as string);
    expect(stream.hls).toBeNull();
    expect(stream.captions?.map((c) => c.lang)).toEqual(["en", "ar"]);
    const [en, ar] = await Promise.all((stream.captions ?? []).map((c) => get(c.url)));
    expect(en?.statusCode).toBe(200);
    expect(en?.headers["content-type"]).toBe("text/vtt; charset=utf-8");
    expect(en?.body).toBe(EN);
    // Stored without the byte order mark and with plain line ends; the Arabic comes back as it was written.
    expect(ar?.body).toBe("WEBVTT\n\n00:00.000 --> 00:01.000\nكان يا ما كان\n");
  });

  it("a corrected file gets a new address, so a browser holding the old one fetches it again", async () => {
    const [story] = stories;
    const before = (await streamOf(story?.adminUrl as string)).captions?.[0]?.url;
    await new Promise((r) => setTimeout(r, 20));
    const after = (
      await save(story?.adminUrl as string, "en", `${EN}\n00:01.000 --> 00:02.000\nThe end\n`)
    ).json() as MediaStream;
    expect(after.captions?.[0]?.url).not.toBe(before);
    expect((await get(after.captions?.[0]?.url as string)).body).toContain("The end");
  });

  it("refuses a file that is not WebVTT or is too large, saying which in details", async () => {
    const src = stories[0]?.adminUrl as string;
    const srt = await save(src, "en", "1\n00:00:00,000 --> 00:00:01,000\nHello\n");
    expect(srt.statusCode).toBe(400);
    expect(srt.json()).toMatchObject({ code: "validation_failed", details: { field: "text", reason: "not_webvtt" } });
    // Within the character limit, over the byte limit: Arabic letters take two bytes each.
    const large = await save(src, "ar", `WEBVTT\n\n${"ك".repeat(CAPTIONS_MAX_BYTES / 2)}`);
    expect(large.statusCode).toBe(400);
    expect(large.json()).toMatchObject({ details: { reason: "too_large" } });
    expect((await save("https://youtu.be/hikaya", "en", EN)).statusCode).toBe(400);
    expect((await save(src, "en", EN, family)).statusCode).toBe(403);
  });

  it("a locked story's captions are refused with another story's cookie, like its video", async () => {
    const [open, locked] = stories;
    await save(locked?.adminUrl as string, "en", EN);
    const [first, second] = await familyStories();
    expect(second?.id).toBe(locked?.id);
    expect(second?.url).toBeUndefined();
    const url = (await streamOf(first?.url as string)).captions?.[0]?.url as string;
    const keyOf = (link: string) => (link.split("?")[0] as string).split("/").pop() as string;
    const [openKey, lockedKey] = [keyOf(open?.adminUrl as string), keyOf(locked?.adminUrl as string)];
    const borrowed = url.replace(openKey, lockedKey);
    expect(borrowed).not.toBe(url);
    expect((await get(borrowed)).statusCode).toBe(403);
  });

  it("are removed one language at a time", async () => {
    const src = stories[0]?.adminUrl as string;
    const removed = await t.app.inject({
      method: "DELETE",
      url: "/api/admin/media/captions",
      headers: admin.headers,
      payload: { src, lang: "en" },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((removed.json() as MediaStream).captions?.map((c) => c.lang)).toEqual(["ar"]);
    const key = (src.split("?")[0] as string).split("/").pop() as string;
    expect(await t.app.deps.storage.stat(STORY_MEDIA_BUCKET, `${key}.media/captions/en.vtt`)).toBeNull();
  });
});
