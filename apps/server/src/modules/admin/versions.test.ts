import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AdminSettings, AdminStory } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../config.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

const VIDEO = readFileSync(join(REPO_ROOT, "apps/server/demo/files/videos/story-01.mp4"));

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

async function newStory(): Promise<AdminStory> {
  const boundary = "----hikayaversions";
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    VIDEO,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const video = await t.app.inject({
    method: "POST",
    url: "/api/admin/uploads/story-video",
    headers: { ...admin.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  const res = await t.app.inject({
    method: "POST",
    url: "/api/admin/stories",
    headers: admin.headers,
    payload: { titleEn: "First", titleAr: "الأولى", videoUrl: video.json().path },
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

const fields = (s: AdminStory) => ({
  titleEn: s.titleEn,
  titleAr: s.titleAr,
  subtitleEn: s.subtitleEn,
  subtitleAr: s.subtitleAr,
});

describe("no lost edits", () => {
  it("two story saves from one version: the first wins, the second gets 409 with the stored values and changes nothing", async () => {
    const story = await newStory();
    const videoUrl = (
      await t.app.deps.db.selectFrom("stories").select("video_url").where("id", "=", story.id).executeTakeFirstOrThrow()
    ).video_url;
    const put = (titleEn: string) =>
      t.app.inject({
        method: "PUT",
        url: `/api/admin/stories/${story.id}`,
        headers: admin.headers,
        payload: { ...fields(story), titleEn, videoUrl, version: story.version },
      });
    const first = await put("Tab one");
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ titleEn: "Tab one", version: story.version + 1 });
    const second = await put("Tab two");
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { id: story.id, titleEn: "Tab one", version: story.version + 1 } },
    });
    const stored = await t.app.inject({ method: "GET", url: `/api/admin/stories/${story.id}`, headers: admin.headers });
    expect(stored.json()).toMatchObject({ titleEn: "Tab one", version: story.version + 1 });
    const audits = await t.app.inject({ method: "GET", url: "/api/admin/audit?action=story.update", headers: admin.headers });
    expect(audits.json().entries).toHaveLength(1);
  });

  it("two saves racing at once from one version: exactly one succeeds", async () => {
    const story = await newStory();
    const videoUrl = (
      await t.app.deps.db.selectFrom("stories").select("video_url").where("id", "=", story.id).executeTakeFirstOrThrow()
    ).video_url;
    const results = await Promise.all(
      ["A", "B"].map((titleEn) =>
        t.app.inject({
          method: "PUT",
          url: `/api/admin/stories/${story.id}`,
          headers: admin.headers,
          payload: { ...fields(story), titleEn, videoUrl, version: story.version },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it("two settings saves from one version: the second gets 409 with the stored settings and changes nothing", async () => {
    const settings: AdminSettings = (
      await t.app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers })
    ).json();
    const put = (titleEn: string) =>
      t.app.inject({
        method: "PUT",
        url: "/api/admin/settings",
        headers: admin.headers,
        payload: {
          titleEn,
          titleAr: settings.titleAr,
          primaryColor: "#2e9e5b",
          siteUnderMaintenance: false,
          version: settings.version,
        },
      });
    expect((await put("Saved first")).statusCode).toBe(200);
    const second = await put("Saved second");
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { titleEn: "Saved first", version: settings.version + 1 } },
    });
    const stored = await t.app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers });
    expect(stored.json()).toMatchObject({ titleEn: "Saved first", version: settings.version + 1 });
  });
});
