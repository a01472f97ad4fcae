import { adminToken, Console } from "../pages/admin.ts";
import { cleanUpConsole, DEMO_FILES, LAPTOP, signUp, userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// Issue 29: an operator uploads a story video, the server processes it (HLS renditions), the console says when it
// is ready, and a family's player streams it through hls.js, starting on the lowest rendition.

test.afterAll(cleanUpConsole);

test("an uploaded story video is processed and the family's player streams it", async ({
  page,
  lang,
  shot,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const title = `E2E Media ${lang} ${Date.now().toString(36)}`;
  await page.setViewportSize(LAPTOP);
  await c.signIn();
  await c.submitSignIn();

  await page.getByRole("link", { name: s.stories.new }).click();
  await page.getByLabel(s.story.titleEn, { exact: true }).fill(title);
  await page.getByLabel(s.story.titleAr, { exact: true }).fill(title);
  await c.upload(s.story.videoFile, DEMO_FILES.video);
  await page.getByRole("button", { name: s.story.create }).click();
  await expect(c.toast(s.story.created)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/stories\/[0-9a-f-]{36}$/);
  const storyId = page.url().split("/").pop() as string;

  // The editor follows the job until its versions are ready (a 6 s demo clip takes a few seconds).
  const state = page.getByRole("status").filter({ hasText: s.mediaJob.label });
  await expect(state).toContainText(s.mediaJob.ready, { timeout: 60_000 });
  await shot("admin-media-ready");

  // Published, and opened for a new family member by watching every story before it.
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const published = await request.put(`/api/admin/stories/${storyId}/published`, { headers, data: { published: true } });
  expect(published.status(), await published.text()).toBe(200);
  const person = await signUp(request);
  const auth = { authorization: `Bearer ${person.token}` };
  const list = (await (await request.get("/api/stories", { headers: auth })).json()) as { id: string }[];
  for (const story of list) {
    if (story.id === storyId) break;
    const watched = await request.post(`/api/users/${person.userId}/watchStory/${story.id}`, { headers: auth });
    expect(watched.status(), await watched.text()).toBe(200);
  }

  const user = await userApp(browser, person, lang);
  try {
    // Chromium may play HLS itself; here it is made to say it cannot, as most Android and desktop browsers do.
    await user.context.addInitScript(() => {
      const canPlayType = HTMLMediaElement.prototype.canPlayType;
      HTMLMediaElement.prototype.canPlayType = function (type: string) {
        return type.includes("mpegurl") ? "" : canPlayType.call(this, type);
      };
    });
    const segments: string[] = [];
    user.page.on("response", (res) => {
      if (/\/storage\/v1\/object\/stream\/.+\.ts$/.test(res.url()) && res.status() === 200) segments.push(res.url());
    });
    await user.page.goto(`/story/${storyId}`);
    const video = user.page.locator("video.player__video");
    // hls.js feeds the element through Media Source: its source is a blob: address, not the MP4 or the playlist.
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.src), { timeout: 20_000 }).toMatch(/^blob:/);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 }).toBeGreaterThan(0.5);
    // It began on the lowest rendition.
    expect(segments[0]).toMatch(/\/240p\/seg_\d+\.ts$/);
    await shot("media-hls-playing");
  } finally {
    await user.context.close();
  }
});
