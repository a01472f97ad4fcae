import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

// An operator who serves story videos from their own CDN lists its origin in the settings: both story APIs then
// accept videos and thumbnails there, and the CSP lets the browser load them. Other outside addresses (another
// origin, plain http, javascript:) are refused, and a listed origin reaches the header of every replica at once.

const CDN = "https://cdn.example.org";
const video = `${CDN}/story.mp4`;

const cspOf = async (app: App) =>
  String((await app.inject({ method: "GET", url: "/api/health" })).headers["content-security-policy"]);
const directive = (csp: string, name: string) =>
  csp
    .split(";")
    .find((d) => d.startsWith(`${name} `))
    ?.split(" ")
    .slice(1) ?? [];

async function listOrigins(app: App, admin: TestUser, videoOrigins: string[]) {
  const current = (await app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers })).json();
  const saved = await app.inject({
    method: "PUT",
    url: "/api/admin/settings",
    headers: admin.headers,
    payload: {
      titleEn: current.titleEn,
      titleAr: current.titleAr,
      primaryColor: current.primaryColor,
      siteUnderMaintenance: current.siteUnderMaintenance,
      videoOrigins,
      version: current.version,
    },
  });
  expect(saved.statusCode, saved.body).toBe(200);
  return saved.json();
}

describe("video origins listed in the settings", () => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await createTestUser(t.app, { admin: true });
  });
  afterAll(async () => t?.close());

  const specCreate = (payload: Record<string, unknown>) =>
    t.app.inject({ method: "POST", url: "/api/stories", headers: admin.headers, payload: { title: "CDN story", ...payload } });
  const consoleCreate = (payload: Record<string, unknown>) =>
    t.app.inject({
      method: "POST",
      url: "/api/admin/stories",
      headers: admin.headers,
      payload: { titleEn: "CDN story", titleAr: "قصة", videoUrl: "https://youtu.be/abcdefgh", ...payload },
    });

  it("refuse a CDN video and an outside thumbnail until the origin is listed; javascript: and http never", async () => {
    const unlisted = await specCreate({ url: video });
    expect(unlisted.statusCode).toBe(400);
    expect(unlisted.json().code).toBe("validation_failed");
    for (const thumbnailUrl of ["javascript:alert(1)", `${CDN}/thumb.jpg`, "http://cdn.example.org/thumb.jpg"]) {
      const spec = await specCreate({ url: "https://youtu.be/abcdefgh", thumbnailUrl });
      expect(spec.statusCode, thumbnailUrl).toBe(400);
      expect(spec.json().code).toBe("validation_failed");
      const console = await consoleCreate({ thumbnailUrl });
      expect(console.statusCode, thumbnailUrl).toBe(400);
      expect(console.json().code).toBe("validation_failed");
    }
    const stories = (await t.app.inject({ method: "GET", url: "/api/admin/stories", headers: admin.headers })).json();
    expect(stories.stories ?? stories).toEqual([]);
    // Only https origins, without a path, may be listed.
    for (const origin of ["http://cdn.example.org", "https://cdn.example.org/videos", "javascript:alert(1)"]) {
      const current = (await t.app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers })).json();
      const refused = await t.app.inject({
        method: "PUT",
        url: "/api/admin/settings",
        headers: admin.headers,
        payload: { ...current, videoOrigins: [origin] },
      });
      expect(refused.statusCode, origin).toBe(400);
    }
  });

  it("accept videos and thumbnails on a listed origin through both APIs, and name it in the CSP's img-src and media-src", async () => {
    const before = await cspOf(t.app);
    expect(directive(before, "media-src")).not.toContain(CDN);
    expect(directive(before, "img-src")).not.toContain(CDN);

    const settings = await listOrigins(t.app, admin, ["https://CDN.example.org/"]);
    expect(settings.videoOrigins).toEqual([CDN]);

    const after = await cspOf(t.app);
    expect(directive(after, "media-src")).toContain(CDN);
    expect(directive(after, "img-src")).toContain(CDN);
    expect(directive(after, "connect-src")).toContain(CDN);
    expect(directive(after, "script-src")).toEqual(["'self'"]);

    const spec = await specCreate({ url: video, thumbnailUrl: `${CDN}/thumb.jpg` });
    expect(spec.statusCode, spec.body).toBe(201);
    expect(spec.json()).toMatchObject({ url: video, thumbnailUrl: `${CDN}/thumb.jpg` });
    const viaConsole = await consoleCreate({ videoUrl: `${CDN}/other.mp4`, thumbnailUrl: `${CDN}/other.jpg` });
    expect(viaConsole.statusCode, viaConsole.body).toBe(200);
    expect(viaConsole.json()).toMatchObject({ videoUrl: `${CDN}/other.mp4`, thumbnailUrl: `${CDN}/other.jpg` });
    const stories = (await t.app.inject({ method: "GET", url: "/api/admin/stories", headers: admin.headers })).json();
    expect((stories.stories ?? stories).map((s: { videoUrl: string }) => s.videoUrl).sort()).toEqual([`${CDN}/other.mp4`, video]);

    // Another origin is still refused, and so is the thumbnail on the page's YouTube host.
    expect((await specCreate({ url: "https://elsewhere.example.org/story.mp4" })).statusCode).toBe(400);
    expect((await consoleCreate({ thumbnailUrl: "https://youtu.be/thumb.jpg" })).statusCode).toBe(400);

    // Unlisted again: the header drops it at once, and new stories from there are refused.
    await listOrigins(t.app, admin, []);
    expect(directive(await cspOf(t.app), "media-src")).not.toContain(CDN);
    expect((await specCreate({ url: video })).statusCode).toBe(400);
  });
});

describe.runIf(testDialect() === "postgres")("a listed origin on two replicas", () => {
  let replicas: TwoReplicas;
  let admin: TestUser;
  beforeAll(async () => {
    replicas = await twoReplicas();
    admin = await createTestUser(replicas.app, { admin: true });
  });
  afterAll(async () => replicas?.close());

  it("a save through replica A shows in replica B's very next CSP", async () => {
    // B has read (and holds) the list before the change.
    expect(directive(await cspOf(replicas.replica), "media-src")).not.toContain(CDN);
    await listOrigins(replicas.app, admin, [CDN]);
    expect(directive(await cspOf(replicas.replica), "media-src")).toContain(CDN);
    await listOrigins(replicas.app, admin, []);
    expect(directive(await cspOf(replicas.replica), "media-src")).not.toContain(CDN);
  });
});
