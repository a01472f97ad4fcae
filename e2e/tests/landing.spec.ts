import { expect, test } from "../support/fixtures.ts";

test.describe("landing video", () => {
  test("plays the intro from the server in the visitor's language", async ({ page, lang, shot }) => {
    await page.goto("/landing");
    await expect(page.locator("html")).toHaveAttribute("lang", lang);
    await expect(page.locator("html")).toHaveAttribute("dir", lang === "ar" ? "rtl" : "ltr");
    const video = page.locator("video");
    // The demo's landing video has an Arabic twin with Arabic text and narration (issue 17).
    const file = lang === "ar" ? "landing-ar" : "landing";
    await expect(video).toHaveAttribute("src", new RegExp(`/storage/v1/object/public/videos/${file}\\.mp4$`));
    await expect
      .poll(async () => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 })
      .toBeGreaterThan(0.2);
    const decoded = await video.evaluate((v: HTMLVideoElement) => ({ w: v.videoWidth, h: v.videoHeight }));
    expect(decoded.w).toBeGreaterThan(0);
    await shot("landing");
  });

  test("unknown server paths get JSON, app routes get the app", async ({ request, baseURL }) => {
    const api = await request.get(`${baseURL}/api/nope`);
    expect(api.status()).toBe(404);
    expect((await api.json()).code).toBe("not_found");
    const route = await request.get(`${baseURL}/story/123`);
    expect(route.status()).toBe(200);
    expect(await route.text()).toContain('<div id="root">');
  });
});

test("a first visit to /landing downloads its own screen in its own language only", async ({ page, lang }) => {
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  await page.goto("/landing");
  await expect(page.locator("video")).toBeVisible();
  await page.waitForLoadState("networkidle");
  const other = lang === "ar" ? "en" : "ar";
  expect(scripts.some((s) => s.startsWith(`/assets/locale-${lang}-common-`))).toBe(true);
  // Not the other language, not TanStack Query (the screens that use it load it), not the console.
  expect(
    scripts.filter((s) => s.startsWith(`/assets/locale-${other}-`) || /\/(query-layout|admin-app|useQuery)-/.test(s)),
  ).toEqual([]);
});
