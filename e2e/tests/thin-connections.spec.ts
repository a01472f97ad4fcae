import { readFileSync } from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import arAccount from "../../apps/web/src/locales/ar/account.json" with { type: "json" };
import arStories from "../../apps/web/src/locales/ar/stories.json" with { type: "json" };
import enAccount from "../../apps/web/src/locales/en/account.json" with { type: "json" };
import enStories from "../../apps/web/src/locales/en/stories.json" with { type: "json" };
import { adminToken } from "../pages/admin.ts";
import { cleanUpConsole, DEMO_FILES, openStoryFor, type Person, signUp, userApp } from "../support/console-setup.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

// Issue 38: families on prepaid mobile data that is slow, costly or gone. A processed story (the 6 s demo clip:
// 180p to 360p and the sound alone) is played in the person's viewing mode, resumed where it was left, at their speed.

const WORDS = { en: { account: enAccount, stories: enStories }, ar: { account: arAccount, stories: arStories } };

test.afterAll(cleanUpConsole);

/** A published story made of the demo clip, processed, and a new family member for whom it is the open one. */
async function processedStory(request: APIRequestContext, lang: Lang): Promise<{ storyId: string; person: Person }> {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const upload = await request.post("/api/admin/uploads/story-video", {
    headers,
    multipart: { file: { name: "story.mp4", mimeType: "video/mp4", buffer: readFileSync(DEMO_FILES.video) } },
  });
  expect(upload.status(), await upload.text()).toBe(200);
  const videoUrl = ((await upload.json()) as { path: string }).path;
  const title = `E2E Thin ${lang} ${Date.now().toString(36)}`;
  const created = await request.post("/api/admin/stories", {
    headers,
    data: { titleEn: title, titleAr: title, videoUrl, published: true },
  });
  expect(created.status(), await created.text()).toBe(200);
  const storyId = ((await created.json()) as { id: string }).id;
  // The story keeps a private copy of the upload, and that copy is what gets processed.
  const stored = await request.get(`/api/admin/stories/${storyId}`, { headers });
  const ref = ((await stored.json()) as { videoUrl: string }).videoUrl;
  await expect
    .poll(
      async () => {
        const res = await request.post("/api/admin/media/status", { headers, data: { paths: [ref] } });
        return ((await res.json()) as { states: ({ status: string } | null)[] }).states[0]?.status;
      },
      { timeout: 60_000 },
    )
    .toBe("ready");
  const person = await signUp(request);
  await openStoryFor(request, person, storyId);
  return { storyId, person };
}

/** What the page's video did: stalls after its first frame (`waiting` after `playing`), where it first seeked to. */
type Watched = { stalls: number; started: boolean; firstSeek: number | null };

/**
 * Makes Chromium say it cannot play HLS itself, as most Android browsers do (hls.js plays the stream), and records
 * the video's events from the page's start (media events do not bubble: caught on their way down).
 */
async function watchPlayer(page: Page) {
  await page.context().addInitScript(() => {
    const canPlayType = HTMLMediaElement.prototype.canPlayType;
    HTMLMediaElement.prototype.canPlayType = function (type: string) {
      return type.includes("mpegurl") ? "" : canPlayType.call(this, type);
    };
    const w: Watched = { stalls: 0, started: false, firstSeek: null };
    (window as unknown as { watched: Watched }).watched = w;
    document.addEventListener("playing", () => (w.started = true), true);
    document.addEventListener("waiting", () => w.started && w.stalls++, true);
    document.addEventListener("seeked", (e) => (w.firstSeek ??= (e.target as HTMLVideoElement).currentTime), true);
  });
}
const watched = (page: Page) => page.evaluate(() => (window as unknown as { watched: Watched }).watched);

test("Save-Data starts in Save data; Audio only plays the sound alone on 400 kbit/s without stalling", async ({
  browser,
  request,
  lang,
  shot,
}) => {
  test.setTimeout(120_000);
  const w = WORDS[lang];
  const { storyId, person } = await processedStory(request, lang);
  const user = await userApp(browser, person, lang, { extraHTTPHeaders: { "Save-Data": "on" } });
  try {
    const page = user.page;
    await watchPlayer(page);
    await page.goto("/edit-profile");
    // Never chosen: the browser's data saver decides.
    await expect(page.getByRole("radio", { name: w.account.viewing.save_data })).toBeChecked();
    await page.getByRole("radio", { name: w.account.viewing.audio_only }).check();
    await expect(page.getByRole("radio", { name: w.account.viewing.audio_only })).toBeChecked();
    await expect
      .poll(async () => {
        const res = await request.get("/api/account", { headers: { authorization: `Bearer ${person.token}` } });
        return ((await res.json()) as { viewingMode: string }).viewingMode;
      })
      .toBe("audio_only");
    await shot("thin-viewing-mode", page);
    // The home's card says what the story costs in that mode, as the player will.
    await page.goto("/");
    const cardSize = page.locator(`li:has(a[href="/story/${storyId}"])`).getByTestId("story-card-size");
    await expect(cardSize).toContainText(w.stories.story.size.replace(" {{size}}", "").trim());
    const costs = await cardSize.textContent();

    // Every media request in order: the poster must not share the weak link with the first segment.
    const fetched: string[] = [];
    page.on("request", (req) => {
      if (/\/storage\/v1\/object\/cookie\/.+\.(ts|jpg)$/.test(req.url())) fetched.push(req.url());
    });
    const segments = () => fetched.filter((url) => url.endsWith(".ts"));
    let segmentsDone = 0;
    let posterAfter = -1;
    page.on("requestfinished", (req) => {
      if (req.url().endsWith(".ts")) segmentsDone++;
    });
    page.on("request", (req) => {
      if (req.url().endsWith("poster.jpg")) posterAfter = segmentsDone;
    });
    // A prepaid link at its weakest: 400 kbit/s down, 200 ms round trip.
    const cdp = await user.context.newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 200,
      downloadThroughput: (400 * 1000) / 8,
      uploadThroughput: (200 * 1000) / 8,
    });
    await page.goto(`/story/${storyId}`);
    const video = page.locator("video.player__video");
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(4);
    expect(segments().length).toBeGreaterThan(0);
    expect(
      segments().every((url) => /\/hls\/audio\/seg_\d+\.ts$/.test(url)),
      segments().join("\n"),
    ).toBe(true);
    // With the sound alone the poster is the picture, fetched once seconds of sound are in, not beside the first.
    await expect(video).toHaveAttribute("poster", /poster\.jpg$/);
    expect(posterAfter).toBeGreaterThanOrEqual(2);
    expect(await watched(page)).toMatchObject({ started: true, stalls: 0 });
    // The size of the sound alone, in the person's language.
    await expect(page.getByTestId("story-size")).toContainText(w.stories.story.size.replace(" {{size}}", "").trim());
    await expect(page.getByTestId("story-size")).toHaveText(costs ?? "");
    await shot("thin-audio-only", page);
  } finally {
    await user.context.close();
  }
});

test("a story resumes at the second it was left, at the speed chosen", async ({ browser, request, lang }) => {
  test.setTimeout(120_000);
  const w = WORDS[lang];
  const { storyId, person } = await processedStory(request, lang);
  const user = await userApp(browser, person, lang);
  try {
    const page = user.page;
    await watchPlayer(page);
    // The story's answer carries its stream: nothing asks about the link the server just sent.
    const asked: string[] = [];
    page.on("request", (req) => {
      if (req.url().includes("/api/media/stream")) asked.push(req.url());
    });
    await page.goto(`/story/${storyId}`);
    const video = page.locator("video.player__video");
    await page.getByRole("button", { name: w.stories.story.speedOption.replace("{{rate}}", "1.25") }).click();
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.playbackRate)).toBe(1.25);
    // Left 2 s in, paused by the page itself on the first tick past 2 s (the 6 s clip's last 3 s would count as
    // finished, and a poll from here could overshoot into them). Pausing writes the second on the server.
    const left = await video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number>((resolve) => {
          const tick = () => {
            if (v.currentTime <= 2) return;
            v.removeEventListener("timeupdate", tick);
            v.pause();
            resolve(Math.floor(v.currentTime));
          };
          v.addEventListener("timeupdate", tick);
        }),
    );
    expect(left).toBe(2);
    const stored = async () => {
      const res = await request.get(`/api/stories/${storyId}`, { headers: { authorization: `Bearer ${person.token}` } });
      return ((await res.json()) as { positionSeconds?: number }).positionSeconds;
    };
    await expect.poll(stored).toBe(left);
    expect(asked).toEqual([]);

    // Another visit (any device: the position is the server's) starts there, at 1.25×.
    await page.reload();
    await expect.poll(async () => (await watched(page)).firstSeek, { timeout: 20_000 }).not.toBeNull();
    expect(Math.floor((await watched(page)).firstSeek as number)).toBe(left);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(left);
    expect(await video.evaluate((v: HTMLVideoElement) => v.playbackRate)).toBe(1.25);
    await expect(page.getByRole("button", { name: w.stories.story.speedOption.replace("{{rate}}", "1.25") })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
  } finally {
    await user.context.close();
  }
});
