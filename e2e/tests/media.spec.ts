import arStories from "../../apps/web/src/locales/ar/stories.json" with { type: "json" };
import enStories from "../../apps/web/src/locales/en/stories.json" with { type: "json" };
import { adminToken, Console } from "../pages/admin.ts";
import { cleanUpConsole, DEMO_FILES, LAPTOP, openStoryFor, signUp, userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// Issue 29: an operator uploads a story video, the server processes it (HLS renditions), the console says when it
// is ready, and a family's player streams it through hls.js, starting on the lowest rendition. Its captions (WCAG 2.2
// 1.2.2) are typed in English and uploaded as a .vtt in Arabic, and show in the family's language with a switch.

const CUES = { en: "Once upon a time", ar: "كان يا ما كان" };
// One cue over the whole 6 s demo clip, so it is on screen whenever the test looks.
const vtt = (text: string) => `WEBVTT\n\n00:00.000 --> 01:00.000\n${text}\n`;

test.afterAll(cleanUpConsole);

test("an uploaded story video is processed and the family's player streams it on a slow connection", async ({
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

  // Captions: a file that is not WebVTT is refused in the operator's language; English typed, Arabic uploaded.
  const captions = page.getByTestId("captions-editor").first();
  const named = (text: string, language: string) => text.replace("{{language}}", language);
  const [en, ar] = [s.captions.languages.en, s.captions.languages.ar];
  await captions.getByLabel(named(s.captions.text, en)).fill("1\n00:00:00,000 --> 00:00:05,000\nNot WebVTT\n");
  await expect(captions.getByRole("alert")).toHaveText(s.captions.problem.not_webvtt);
  await captions.getByLabel(named(s.captions.text, en)).fill(vtt(CUES.en));
  await expect(captions.getByRole("alert")).toHaveText("");
  // The preview plays the video with the typed captions, before anything is saved.
  await expect(captions.locator("video track")).toHaveAttribute("src", /^blob:/);
  await captions.getByRole("button", { name: named(s.captions.save, en) }).click();
  await expect(c.toast(named(s.captions.savedToast, en))).toBeVisible();
  await captions.getByRole("radio", { name: new RegExp(`^${ar}`) }).check();
  // An uploaded SubRip file becomes WebVTT; a file that is neither is refused and changes nothing.
  const arText = captions.getByLabel(named(s.captions.text, ar));
  const srt = "1\r\n00:00:00,000 --> 00:00:05,000\r\nمرحبا\r\n";
  await captions
    .getByLabel(named(s.captions.file, ar))
    .setInputFiles({ name: "ar.srt", mimeType: "application/x-subrip", buffer: Buffer.from(srt) });
  await expect(arText).toHaveValue("WEBVTT\n\n00:00:00.000 --> 00:00:05.000\nمرحبا\n");
  await captions
    .getByLabel(named(s.captions.file, ar))
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("notes") });
  await expect(captions.getByRole("alert")).toHaveText(s.captions.problem.not_captions);
  await expect(arText).toHaveValue("WEBVTT\n\n00:00:00.000 --> 00:00:05.000\nمرحبا\n");
  await captions
    .getByLabel(named(s.captions.file, ar))
    .setInputFiles({ name: "ar.vtt", mimeType: "text/vtt", buffer: Buffer.from(vtt(CUES.ar)) });
  await expect(captions.getByLabel(named(s.captions.text, ar))).toHaveValue(vtt(CUES.ar));
  await captions.getByRole("button", { name: named(s.captions.save, ar) }).click();
  await expect(c.toast(named(s.captions.savedToast, ar))).toBeVisible();
  await shot("admin-captions-saved");

  // Published, and opened for a new family member by watching every story before it.
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const published = await request.put(`/api/admin/stories/${storyId}/published`, { headers, data: { published: true } });
  expect(published.status(), await published.text()).toBe(200);
  const person = await signUp(request);
  await openStoryFor(request, person, storyId);

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
      if (/\/storage\/v1\/object\/cookie\/.+\.ts$/.test(res.url()) && res.status() === 200) segments.push(res.url());
    });
    // A family on a weak phone connection: 1.6 Mbit/s down, 150 ms round trip (issue 29's slow 4G).
    const cdp = await user.context.newCDPSession(user.page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await user.page.goto(`/story/${storyId}`);
    const video = user.page.locator("video.player__video");
    // hls.js feeds the element through Media Source: its source is a blob: address, not the MP4 or the playlist.
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.src), { timeout: 20_000 }).toMatch(/^blob:/);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 }).toBeGreaterThan(0.5);
    // It began on the lowest rendition.
    expect(segments[0]).toMatch(/\/180p\/seg_\d+\.ts$/);
    await shot("media-hls-playing", user.page);

    // Captions in the family's language are on screen, as right-to-left Arabic for an Arabic reader; the switch
    // goes to the other language, then off.
    const words = { en: enStories, ar: arStories }[lang].captions;
    const other = lang === "ar" ? "en" : "ar";
    const showing = () =>
      video.evaluate((v: HTMLVideoElement) => {
        const track = Array.from(v.textTracks).find((t) => t.mode === "showing");
        const cue = track?.activeCues?.[0] as VTTCue | undefined;
        return track ? `${track.language}: ${cue?.text ?? ""}` : "off";
      });
    await expect(video.locator(`track[srclang="${lang}"]`)).toHaveAttribute("lang", lang);
    await expect.poll(showing, { timeout: 10_000 }).toBe(`${lang}: ${CUES[lang]}`);
    await expect(video).toHaveAttribute("data-captions", lang);
    await shot("media-captions", user.page);
    await user.page.getByRole("button", { name: words.languages[other] }).click();
    await expect.poll(showing, { timeout: 10_000 }).toBe(`${other}: ${CUES[other]}`);
    await user.page.getByRole("button", { name: words.off }).click();
    await expect.poll(showing).toBe("off");
    await expect(user.page.getByRole("button", { name: words.off })).toHaveAttribute("aria-pressed", "true");
  } finally {
    await user.context.close();
  }
});
