import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ADMIN_STRINGS, adminToken, Console } from "../pages/admin.ts";
import { COMMON, recordThought, STRINGS } from "../pages/journey.ts";
import { cleanUpConsole, consoleTab, DEMO_FILES, LAPTOP, signUp, userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// The console's stories: building one (video, thumbnail, family member, question and answer), previewing,
// publishing, reordering and deleting it while the user app follows; and two tabs saving the same story.

test.describe.configure({ mode: "serial" });

test.afterAll(cleanUpConsole);

test("an operator builds a story in the console and the user app follows", async ({ page, lang, shot, browser, request }) => {
  test.setTimeout(180_000);
  const c = new Console(page, lang);
  const s = c.s;
  const stamp = Date.now().toString(36);
  const titleEn = `E2E Story ${lang} ${stamp}`;
  const titleAr = `قصة تجريبية ${stamp}`;
  const memberEn = `E2E Huda ${lang} ${stamp}`;
  const memberAr = `هدى ${stamp}`;
  const person = await signUp(request);
  await page.setViewportSize(LAPTOP);

  // Sign in.
  await c.signIn();
  await shot("admin-login");
  await c.submitSignIn();

  // A new story with an uploaded video.
  await page.getByRole("link", { name: s.stories.new }).click();
  await expect(page.getByRole("heading", { level: 1, name: s.story.newTitle })).toBeVisible();
  await page.getByLabel(s.story.titleEn, { exact: true }).fill(titleEn);
  await page.getByLabel(s.story.titleAr, { exact: true }).fill(titleAr);
  await page.getByLabel(s.story.subtitleEn, { exact: true }).fill("Made by the console test");
  await page.getByLabel(s.story.subtitleAr, { exact: true }).fill("من اختبار لوحة التحكم");
  // A PDF is not a video: the server judges the bytes and refuses it (415), saying so.
  await page.getByLabel(s.story.videoFile, { exact: true }).setInputFiles(DEMO_FILES.pdf);
  await expect(
    page.locator(".admin-upload").getByRole("alert").filter({ hasText: COMMON[lang].errors.unsupported_media_type }),
  ).toBeVisible();
  await c.upload(s.story.videoFile, DEMO_FILES.video);
  await expect(page.locator("video.admin-preview")).toHaveAttribute("src", /\/storage\/v1\/object\/public\/videos\/.+\.mp4$/);
  await c.settle();
  await shot("admin-story-new");
  await page.getByRole("button", { name: s.story.create }).click();
  await expect(c.toast(s.story.created)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/stories\/[0-9a-f-]{36}$/);
  const storyId = page.url().split("/").pop() as string;

  // Its thumbnail, named by the story id.
  await c.upload(s.story.thumbnailFile, DEMO_FILES.thumbnail);
  await expect(page.getByRole("img", { name: s.story.thumbnail })).toHaveAttribute(
    "src",
    new RegExp(`/thumbnails/${storyId}\\?v=\\d+$`),
  );

  // A family member with a picture and audio.
  await c.go(s.nav.characters, s.characters.title);
  await page.getByRole("button", { name: s.characters.new }).click();
  const form = page.getByRole("form", { name: s.characters.new });
  await form.getByLabel(s.characters.nameEn, { exact: true }).fill(memberEn);
  await form.getByLabel(s.characters.nameAr, { exact: true }).fill(memberAr);
  await c.upload(s.characters.thumbnail, DEMO_FILES.picture);
  await c.upload(s.characters.audio, DEMO_FILES.audio);
  await form.getByRole("button", { name: s.common.save }).click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId("character").filter({ hasText: memberEn })).toBeVisible();
  await c.settle();
  await shot("admin-characters");

  // A question on the story, answered by the new family member.
  await page.goto(`/admin/stories/${storyId}`);
  await expect(page.getByRole("heading", { level: 1, name: s.story.editTitle })).toBeVisible();
  await c.upload(s.questions.addMedia, DEMO_FILES.questionVideo);
  await expect(c.toast(s.questions.added)).toBeVisible();
  const question = page.getByTestId("question").first();
  await expect(question.getByRole("heading", { name: s.questions.number.replace("{{n}}", "1") })).toBeVisible();
  await question.getByLabel(s.questions.character, { exact: true }).selectOption({ label: lang === "ar" ? memberAr : memberEn });
  await question.getByLabel(s.questions.answerAudio, { exact: true }).setInputFiles(DEMO_FILES.answerAudio);
  await expect(c.toast(s.questions.answerAdded)).toBeVisible({ timeout: 20_000 });
  await expect(question.locator(".admin-answer").filter({ hasText: lang === "ar" ? memberAr : memberEn })).toBeVisible();
  await question.scrollIntoViewIfNeeded();
  await c.settle();
  await shot("admin-story-edit");

  // A new story is a draft: families do not see it; the console previews it as a family member would.
  const title = lang === "ar" ? titleAr : titleEn;
  const member = lang === "ar" ? memberAr : memberEn;
  await expect(page.getByTestId("story-status")).toHaveText(s.story.statusDraft);
  const user = await userApp(browser, person, lang);
  await user.page.goto("/");
  await expect(user.page.locator(".story-card").first()).toBeVisible();
  await expect(user.page.locator(".story-card__title").filter({ hasText: title })).toHaveCount(0);
  await page.getByRole("link", { name: s.story.openPreview }).click();
  await expect(page.getByRole("heading", { level: 1, name: s.preview.title })).toBeVisible();
  const preview = page.getByTestId("story-preview");
  await expect(preview.locator(".story-card__title")).toHaveText(title);
  await expect(preview.locator(".story-card")).toHaveAttribute("data-status", "Active");
  // The family's card, in the console too, reads its Play label from the user app's strings (it said "home.play").
  await expect(preview.getByRole("link", { name: STRINGS[lang].home.play.replace("{{title}}", title) })).toBeVisible();
  await expect(preview.locator(".admin-answer").filter({ hasText: member })).toBeVisible();
  await c.settle();
  await shot("admin-story-preview");
  // Publishing asks first; then the family's list has it at once.
  await page.getByRole("link", { name: s.preview.backToEditor }).click();
  await page.getByRole("button", { name: s.story.publish }).click();
  const confirmPublish = page.getByRole("dialog", { name: s.story.publishTitle.replace("{{title}}", title) });
  await expect(confirmPublish).toBeVisible();
  await confirmPublish.getByRole("button", { name: s.story.publish }).click();
  await expect(c.toast(s.story.published)).toBeVisible();
  await expect(page.getByTestId("story-status")).toHaveText(s.story.statusPublished);
  await user.page.reload();
  await expect(user.page.locator(".story-card__title").filter({ hasText: title })).toHaveCount(1);

  // Someone who has watched the first story, so moving a story before it affects them.
  const watcher = await signUp(request);
  const firstId = ((await (await request.get("/api/stories")).json()) as { id: string }[])[0]?.id as string;
  const watched = await request.post(`/api/users/${watcher.userId}/watchStory/${firstId}`, {
    headers: { authorization: `Bearer ${watcher.token}` },
  });
  expect(watched.status(), await watched.text()).toBe(200);

  // Reorder: drag the new story (last published) to the top, then down and up again with the arrow buttons.
  // Moving it before the watcher's story asks first, saying how many people it affects.
  await c.go(s.nav.stories, s.stories.title);
  const rows = c.storyRows();
  await expect(rows.filter({ hasText: title })).toHaveCount(1);
  const count = await rows.count();
  const confirmMove = page.getByRole("dialog", { name: s.stories.moveTitle });
  // Both ends of the drag on screen at once (the demo program has 18+ stories).
  await page.setViewportSize({ width: LAPTOP.width, height: 320 + count * 90 });
  await rows.filter({ hasText: title }).dragTo(rows.first());
  await expect(confirmMove).toBeVisible();
  // The count is worded in the operator's language (any plural form: others' watchers may add to it).
  const moveBodies = Object.entries(s.stories)
    .filter(([key]) => key.startsWith("moveBody_"))
    .map(([, text]) =>
      String(text)
        .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        .replace("\\{\\{count\\}\\}", "\\d+"),
    );
  await expect(confirmMove.getByTestId("move-impact")).toHaveText(new RegExp(`^(${moveBodies.join("|")})$`));
  await shot("admin-story-move-confirm");
  await confirmMove.getByRole("button", { name: s.stories.moveConfirm }).click();
  await expect(rows.first()).toContainText(title);
  await expect(rows.first().locator(".admin-order")).toHaveText("1");
  // Down past a story nobody watched after it: nobody affected, no question.
  await page.getByRole("button", { name: s.common.moveDown.replace("{{name}}", title) }).click();
  await expect(rows.nth(1)).toContainText(title);
  await page.getByRole("button", { name: s.common.moveUp.replace("{{name}}", title) }).click();
  await expect(confirmMove).toBeVisible();
  await confirmMove.getByRole("button", { name: s.stories.moveConfirm }).click();
  await expect(rows.first()).toContainText(title);
  await expect(rows).toHaveCount(count);
  const orders = await rows.locator(".admin-order").allTextContents();
  expect(orders).toEqual(orders.map((_, i) => String(i + 1)));
  await page.setViewportSize(LAPTOP);
  await page.evaluate(() => window.scrollTo(0, 0));
  await c.settle();
  await shot("admin-stories");

  // The user app: the story is first, active, with its thumbnail; its question plays the new answer.
  await user.page.goto("/");
  const card = user.page.locator(".story-card").first();
  await expect(card.locator(".story-card__title")).toHaveText(title);
  await expect(card).toHaveAttribute("data-status", "Active");
  await expect(card.locator("img")).toHaveAttribute("src", new RegExp(`/thumbnails/${storyId}`));
  await user.page.goto(`/questions/${storyId}/1`);
  const player = user.page.locator("video.player__video");
  await expect(player).toBeVisible();
  await player.evaluate((v: HTMLVideoElement) => {
    v.pause();
    v.dispatchEvent(new Event("ended"));
  });
  await expect(user.page.locator(".answer").filter({ hasText: member })).toBeVisible();
  // The person records a thought on the new story (through the token API, as the recorder would).
  await recordThought(request, person, storyId);
  await user.context.close();

  // The person's recording shows on their page in the console, and plays.
  await page.goto(`/admin/users/${person.userId}`);
  await expect(page.getByRole("heading", { name: s.users.profile })).toBeVisible();
  const recording = page.getByTestId("recording").first();
  await expect(recording).toContainText(title);
  await recording.getByRole("button", { name: s.users.play }).click();
  await expect(recording.locator("audio")).toHaveAttribute("src", /^blob:/);
  await c.settle();
  await shot("admin-user");

  // The audit log names each change.
  await c.go(s.nav.audit, s.audit.title);
  for (const action of [
    "story.create",
    "story.thumbnail",
    "story.publish",
    "character.create",
    "question.create",
    "answer.create",
    "story.reorder",
  ] as const)
    await expect(c.auditEntry(action)).toBeVisible();
  await c.settle();
  await shot("admin-audit");

  // Phone size: the side navigation becomes a drawer.
  await page.setViewportSize({ width: 390, height: 844 });
  await c.go(s.nav.stories, s.stories.title);
  await c.settle();
  await shot("admin-stories-phone");
  await page.getByRole("button", { name: s.nav.openMenu }).click();
  await expect(c.nav(s.nav.audit)).toBeVisible();
  await c.settle();
  await shot("admin-nav-phone");
  await page.getByRole("button", { name: s.nav.closeMenu }).first().click();

  // Deleting the story asks first, then the order closes up again; the person's recording stays.
  await page.getByRole("button", { name: `${s.common.delete}: ${title}` }).click();
  const confirmDelete = page.getByRole("dialog", { name: s.stories.deleteTitle.replace("{{title}}", title) });
  await expect(confirmDelete).toBeVisible();
  await shot("admin-story-delete-phone");
  await confirmDelete.getByRole("button", { name: s.common.delete }).click();
  await expect(c.toast(s.stories.deleted)).toBeVisible();
  await expect(c.storyRows().filter({ hasText: title })).toHaveCount(0);
  await expect(c.storyRows()).toHaveCount(count - 1);
  const headers = { authorization: `Bearer ${person.token}` };
  const kept = (await (await request.get(`/api/users/${person.userId}/recordings`, { headers })).json()) as
    | unknown[]
    | { items?: unknown[] };
  expect(Array.isArray(kept) ? kept.length : (kept.items?.length ?? 0)).toBe(1);
});

test("two tabs editing one story and one question: the second save is refused with the stored values shown", async ({
  browser,
  lang,
  request,
}) => {
  test.setTimeout(120_000);
  const s = ADMIN_STRINGS[lang];
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const stamp = Date.now().toString(36);
  const upload = async (purpose: string, file: string, mimeType: string) => {
    const res = await request.post(`/api/admin/uploads/${purpose}`, {
      headers,
      multipart: { file: { name: file.split("/").pop() as string, mimeType, buffer: readFileSync(file) } },
    });
    expect(res.status(), await res.text()).toBe(200);
    return ((await res.json()) as { path: string }).path;
  };
  const created = await request.post("/api/admin/stories", {
    headers,
    data: {
      titleEn: `E2E Tabs ${lang} ${stamp}`,
      titleAr: `تبويبان ${stamp}`,
      videoUrl: "https://youtu.be/hikaya",
      published: false,
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const storyId = ((await created.json()) as { id: string }).id;
  const media = await upload("question-media", DEMO_FILES.questionVideo, "video/mp4");
  expect((await request.post(`/api/admin/stories/${storyId}/questions`, { headers, data: { media } })).status()).toBe(200);

  const one = await consoleTab(browser, lang);
  const two = await consoleTab(browser, lang);
  for (const tab of [one, two]) {
    await tab.c.page.goto(`/admin/stories/${storyId}`);
    await expect(tab.c.page.getByTestId("question")).toHaveCount(1);
  }

  // The story: the first tab saves a new English title; the second tab's save is refused and shows it.
  const firstTitle = `E2E Tabs first ${stamp}`;
  await one.c.page.getByLabel(s.story.titleEn, { exact: true }).fill(firstTitle);
  await one.c.page.getByRole("button", { name: s.common.save, exact: true }).click();
  await expect(one.c.toast(s.story.updated)).toBeVisible();
  await two.c.page.getByLabel(s.story.subtitleEn, { exact: true }).fill("second tab");
  await two.c.page.getByRole("button", { name: s.common.save, exact: true }).click();
  const storyNotice = two.c.page.getByTestId("stale-notice");
  await expect(storyNotice.getByRole("heading", { name: s.conflict.title })).toBeVisible();
  await expect(storyNotice).toContainText(firstTitle);

  // A title of only spaces: refused, and the console says which field and why in the operator's language.
  await one.c.page.getByLabel(s.story.titleAr, { exact: true }).fill("   ");
  await one.c.page.getByRole("button", { name: s.common.save, exact: true }).click();
  await expect(
    one.c.toast(s.validation.field.replace("{{field}}", s.story.titleAr).replace("{{problem}}", s.validation.too_small)),
  ).toBeVisible();

  // The question: the first tab replaces its video; the second tab's replacement is refused with the stored one.
  const nameOf = (src: string | null) => src?.split("?")[0]?.split("/").pop() as string;
  const oneVideo = one.c.page.getByTestId("question").locator("video").first();
  const originalName = nameOf(await oneVideo.getAttribute("src"));
  await one.c.page.getByTestId("question").getByLabel(s.questions.replaceMedia, { exact: true }).setInputFiles(DEMO_FILES.video);
  // The saved question comes back with its new private copy of the video.
  await expect(oneVideo).not.toHaveAttribute("src", new RegExp(originalName), { timeout: 20_000 });
  const storedName = nameOf(await oneVideo.getAttribute("src"));
  expect(storedName).toMatch(/\.mp4$/);
  await two.c.page.getByTestId("question").getByLabel(s.questions.replaceMedia, { exact: true }).setInputFiles(DEMO_FILES.video);
  const questionNotice = two.c.page.getByTestId("question").getByTestId("stale-notice");
  await expect(questionNotice.getByRole("heading", { name: s.conflict.title })).toBeVisible({ timeout: 20_000 });
  await expect(questionNotice).toContainText(storedName);
  await questionNotice.scrollIntoViewIfNeeded();
  await two.c.page.screenshot({ path: resolve(import.meta.dirname, "..", "screenshots", lang, "admin-question-stale.png") });
  // Loading the current version puts the stored question on the page.
  await questionNotice.getByRole("button", { name: s.conflict.reload }).click();
  await expect(two.c.page.getByTestId("question").locator("video").first()).toHaveAttribute("src", new RegExp(storedName));

  await one.context.close();
  await two.context.close();
  await request.delete(`/api/admin/stories/${storyId}`, { headers });
});
