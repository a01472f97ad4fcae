import { adminToken, Console } from "../pages/admin.ts";
import { expect, test } from "../support/fixtures.ts";

interface AdminStory {
  id: string;
  thumbnailUrl: string | null;
  thumbnailUrlAr: string | null;
}

/**
 * The console shows a story's thumbnail as a family in the console's language sees it (issue 17's Arabic media):
 * the demo program has every thumbnail in English and in Arabic.
 */
test("the story list and the preview show each story's thumbnail in the console's language", async ({
  page,
  lang,
  request,
  shot,
}) => {
  const token = await adminToken(request);
  const res = await request.get("/api/admin/stories", { headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(200);
  const [first, second] = (await res.json()) as AdminStory[];
  if (!first || !second) throw new Error("the demo program has stories");
  const inLanguage = (s: AdminStory) => (lang === "ar" ? s.thumbnailUrlAr : s.thumbnailUrl) ?? "";
  expect(first.thumbnailUrlAr).toBeTruthy();
  expect(first.thumbnailUrlAr).not.toBe(first.thumbnailUrl);

  const c = new Console(page, lang);
  await c.signIn();
  await c.submitSignIn();
  const rows = c.storyRows();
  await expect(rows.nth(0).locator("img")).toHaveAttribute("src", inLanguage(first));
  await expect(rows.nth(1).locator("img")).toHaveAttribute("src", inLanguage(second));
  await shot("console-stories-thumbnails");

  await page.goto(`/admin/stories/${first.id}/preview`);
  await expect(page.getByRole("heading", { level: 1, name: c.s.preview.title })).toBeVisible();
  await expect(page.getByTestId("story-preview").locator(".story-card img")).toHaveAttribute("src", inLanguage(first));
});
