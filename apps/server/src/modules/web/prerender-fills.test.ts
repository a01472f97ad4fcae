import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { mediaWorkerOf } from "../media/worker.ts";

// Issue 38: the prerendered landing and documents screens get what the operator uploaded since the build, so they
// are real pages before any script: the intro video with its poster, the terms and privacy links.

const LANDING = '<html lang="en"><main><video class="landing__video" data-fill="landing-video" preload="none"></video></main>';
const TERMS = '<html lang="en"><a class="document-screen__download" data-fill="terms" download="">Download</a>';

let t: TestApp;
let dist: string;
beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "hikaya-dist-"));
  for (const lang of ["en", "ar"]) {
    mkdirSync(join(dist, "prerendered", lang), { recursive: true });
    writeFileSync(join(dist, "prerendered", lang, "landing.html"), LANDING.replace('"en"', `"${lang}"`));
    writeFileSync(join(dist, "prerendered", lang, "termandcondtion.html"), TERMS);
    writeFileSync(join(dist, "prerendered", lang, "privacypolicy.html"), TERMS.replace("terms", "privacy"));
  }
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>Hikaya</title>");
  writeFileSync(join(dist, "preloads.json"), JSON.stringify({ routes: [], locales: { en: {}, ar: {} } }));
  t = await createTestApp({ WEB_DIST_DIR: dist });
  await mediaWorkerOf(t.app)?.stop();
});
afterAll(async () => {
  await t?.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (url: string, lang: "en" | "ar", encoding = "identity") =>
  t.app.inject({ url, headers: { "accept-language": lang, "accept-encoding": encoding } });
const now = () => new Date().toISOString();

describe("prerendered screens the server fills in", () => {
  it("sends the landing's video element as built while no intro video is set", async () => {
    const res = await get("/landing", "en");
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(LANDING);
  });

  it("gives the landing's video its file in the visitor's language, and the poster once processed", async () => {
    const db = t.app.deps.db;
    await db
      .insertInto("instructions")
      .values({
        location: "Landing Page",
        media_path: "/storage/v1/object/public/videos/intro.mp4",
        media_path_ar: "/storage/v1/object/public/videos/intro-ar.mp4",
        updated_at: now(),
      })
      .execute();
    const en = await get("/landing", "en");
    expect(en.body).toContain(
      '<video class="landing__video" data-fill="landing-video" src="/storage/v1/object/public/videos/intro.mp4" preload="none">',
    );
    expect(en.headers).toMatchObject({ "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" });
    expect(en.headers.etag).toBeUndefined();
    expect((await get("/landing", "ar")).body).toContain('src="/storage/v1/object/public/videos/intro-ar.mp4"');

    const outputs = JSON.stringify({ hls: "intro.mp4.media/hls/master.m3u8", poster: "intro.mp4.media/poster.jpg" });
    await sql`insert into media_jobs (id, bucket, object_key, kind, status, progress, attempts, outputs, created_at, updated_at)
      values ('job-intro', 'videos', 'intro.mp4', 'video', 'ready', 100, 1, ${outputs}, ${now()}, ${now()})`.execute(db);
    const processed = await get("/landing", "en", "gzip, deflate, br");
    expect(processed.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(processed.rawPayload).toString()).toContain(
      'data-fill="landing-video" src="/storage/v1/object/public/videos/intro.mp4" ' +
        'poster="/storage/v1/object/public/videos/intro.mp4.media/poster.jpg"',
    );
  });

  it("gives the terms and privacy screens their documents' links, escaped", async () => {
    const terms = '/storage/v1/object/public/documents/terms "1".pdf';
    await t.app.deps.db
      .insertInto("documents")
      .values([
        { key: "termsAndCondition", path: terms, updated_at: now() },
        { key: "privacyAndPolicy", path: "/storage/v1/object/public/documents/privacy.pdf", updated_at: now() },
      ])
      .execute();
    expect((await get("/termandcondtion", "en")).body).toContain(
      'data-fill="terms" href="/storage/v1/object/public/documents/terms &quot;1&quot;.pdf"',
    );
    expect((await get("/privacypolicy", "ar")).body).toContain(
      'data-fill="privacy" href="/storage/v1/object/public/documents/privacy.pdf"',
    );
  });
});
