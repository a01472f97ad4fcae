import { join, resolve } from "node:path";
import { type APIRequestContext, request as playwrightRequest } from "@playwright/test";
import { ADMIN_STRINGS, adminToken, Console } from "../pages/admin.ts";
import { auth, COMMON, createUser, Journey, signIn, stories } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

/**
 * Media in the family's language (issue 17): the demo program has every story thumbnail and video in English and
 * in Arabic, and the app asks for the ones of its language (`?lang=`), so an Arabic family never sees English text
 * burned into a picture, and an English family never sees Arabic.
 */

/** The stored object a signed link or public address names (signed links change; the object does not). */
const objectOf = (url: string | null | undefined) => url?.split("?")[0] ?? "";

const FILES = resolve(import.meta.dirname, "..", "..", "apps/server/demo/files");

let request: APIRequestContext;
test.beforeAll(async () => {
  request = await playwrightRequest.newContext({ baseURL: process.env.E2E_BASE_URL });
});
test.afterAll(async () => request.dispose());

test("the home shows each story's thumbnail, and the player its video, in the family's language", async ({
  page,
  lang,
  shot,
}) => {
  const user = await createUser(request);
  const list = await stories(request, user);
  const other = lang === "ar" ? "en" : "ar";
  const suffix = lang === "ar" ? "-ar" : "";
  const j = new Journey(page, lang);
  await signIn(page, user);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: j.s.home.header })).toBeVisible();
  for (const order of [1, 2, 3]) {
    const id = list[order - 1]?.id ?? "";
    await expect(j.card(order).locator("img")).toHaveAttribute("src", `/storage/v1/object/public/thumbnails/${id}${suffix}`);
  }
  // Every visible thumbnail has loaded (a broken one would show nothing, in either language).
  await expect
    .poll(() =>
      page
        .locator(".story-card img")
        .evaluateAll((imgs) => imgs.slice(0, 4).every((i) => (i as HTMLImageElement).naturalWidth > 0)),
    )
    .toBe(true);
  await shot("home-thumbnails");

  // Switching the app's language switches the pictures too.
  const s = COMMON[lang].language;
  await page.getByRole("button", { name: `${s.label}: ${s.switchTo}` }).click();
  await expect(j.card(1).locator("img")).toHaveAttribute(
    "src",
    `/storage/v1/object/public/thumbnails/${list[0]?.id}${lang === "ar" ? "" : "-ar"}`,
  );
  await page.getByRole("button", { name: `${COMMON[other].language.label}: ${COMMON[other].language.switchTo}` }).click();
  await expect(j.card(1).locator("img")).toHaveAttribute("src", `/storage/v1/object/public/thumbnails/${list[0]?.id}${suffix}`);

  const first = list[0]?.id ?? "";
  const video = async (language: string) => {
    const res = await request.get(`/api/stories/${first}?lang=${language}`, { headers: auth(user) });
    expect(res.status()).toBe(200);
    return objectOf(((await res.json()) as { url?: string }).url);
  };
  const [mine, theirs] = await Promise.all([video(lang), video(other)]);
  expect(mine).not.toBe(theirs);
  await j.card(1).getByRole("link").click();
  const player = page.locator("video.player__video");
  await expect.poll(async () => objectOf(await player.getAttribute("src"))).toBe(mine);
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 }).toBeGreaterThan(0);
});

test("the landing video follows a switch of the app's language, and so do the preloads of the next screen", async ({
  page,
  lang,
}) => {
  const landing = (language: string) =>
    new RegExp(`/storage/v1/object/public/videos/landing${language === "ar" ? "-ar" : ""}\\.mp4$`);
  await page.goto("/landing");
  const video = page.locator("video");
  await expect(video).toHaveAttribute("src", landing(lang));
  const s = COMMON[lang].language;
  await page.getByRole("button", { name: `${s.label}: ${s.switchTo}` }).click();
  const other = lang === "ar" ? "en" : "ar";
  await expect(page.locator("html")).toHaveAttribute("lang", other);
  await expect(video).toHaveAttribute("src", landing(other));
  // The choice reaches the server too: it sends the prerendered screens in that language, and preloads another
  // screen's strings in it (issue 15).
  expect(await (await page.request.get("/login")).text()).toContain(`data-prerendered="${other}"`);
  const screen = await page.request.get("/change-password");
  expect(screen.headers().link).toContain(`/assets/locale-${other}-account-`);
  expect(screen.headers().link).not.toContain(`/assets/locale-${lang}-`);
});

test("an operator adds a story's Arabic thumbnail and video in the console, and removes the thumbnail", async ({
  page,
  lang,
  shot,
}) => {
  const s = ADMIN_STRINGS[lang];
  const token = await adminToken(request);
  const admin = { authorization: `Bearer ${token}` };
  const created = await request.post("/api/admin/stories", {
    headers: admin,
    data: { titleEn: `Two languages ${lang}`, titleAr: `بلغتين ${lang}`, videoUrl: "https://youtu.be/hikaya-e2e" },
  });
  expect(created.status(), await created.text()).toBe(200);
  const id = ((await created.json()) as { id: string }).id;
  const family = async () => {
    const res = await request.get(`/api/stories/${id}?lang=ar`);
    return (await res.json()) as { thumbnailUrl: string | null };
  };

  try {
    await page.setViewportSize({ width: 1280, height: 860 });
    const c = new Console(page, lang);
    await c.signIn();
    await c.submitSignIn();
    await page.goto(`/admin/stories/${id}`);
    const section = page.getByRole("region", { name: s.arabicMedia.title });
    await expect(section).toBeVisible();
    await expect(section.getByText(s.arabicMedia.none)).toHaveCount(2);

    await c.upload(s.arabicMedia.thumbnailFile, join(FILES, "thumbnails/story-01-ar.jpg"));
    await expect(c.toast(s.arabicMedia.saved)).toBeVisible();
    await expect(section.getByRole("img", { name: s.arabicMedia.thumbnail })).toHaveAttribute(
      "src",
      new RegExp(`/thumbnails/${id}-ar\\?v=\\d+$`),
    );
    await c.upload(s.arabicMedia.videoFile, join(FILES, "videos/story-01-ar.mp4"));
    await expect(section.locator("video.admin-preview")).toHaveAttribute("src", /\/storage\/v1\/object\/sign\/story-media\//);
    // Arabic families get the new picture; the English one is still missing, so English families get it too.
    expect((await family()).thumbnailUrl).toMatch(new RegExp(`/thumbnails/${id}-ar\\?v=\\d+$`));
    await section.scrollIntoViewIfNeeded();
    await c.settle();
    await shot("admin-arabic-media");

    await section.getByRole("button", { name: s.arabicMedia.removeTitle.replace("{{name}}", s.arabicMedia.thumbnail) }).click();
    const dialog = page.getByRole("dialog", { name: s.arabicMedia.removeTitle.replace("{{name}}", s.arabicMedia.thumbnail) });
    await dialog.getByRole("button", { name: s.arabicMedia.remove }).click();
    await expect(c.toast(s.arabicMedia.removed)).toBeVisible();
    await expect(section.getByRole("img", { name: s.arabicMedia.thumbnail })).toHaveCount(0);
    expect((await family()).thumbnailUrl).toBeNull();
  } finally {
    await request.delete(`/api/admin/stories/${id}`, { headers: admin });
  }
});
