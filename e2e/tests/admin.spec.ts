import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import arCommon from "../../apps/web/src/locales/ar/common.json" with { type: "json" };
import enCommon from "../../apps/web/src/locales/en/common.json" with { type: "json" };
import { ADMIN_STRINGS, adminToken, Console } from "../pages/admin.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

const FILES = resolve(import.meta.dirname, "..", "..", "apps/server/demo/files");
const VIDEO = join(FILES, "videos/story-01.mp4");
const QUESTION_VIDEO = join(FILES, "question-media/s01-q1.mp4");
const THUMBNAIL = join(FILES, "thumbnails/story-02.jpg");
const PICTURE = join(FILES, "images/aunt.jpg");
const AUDIO = join(FILES, "audio/landing-aunt.m4a");
const ANSWER_AUDIO = join(FILES, "audio/answers/s01-q1-aunt.m4a");
const COMMON = { en: enCommon, ar: arCommon } as const;
const LAPTOP = { width: 1280, height: 860 };

test.describe.configure({ mode: "serial" });

interface Person {
  token: string;
  userId: string;
  phone: string;
}

async function signUp(request: APIRequestContext): Promise<Person> {
  const phone = `79${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await request.post("/api/sign-up", {
    data: { country: "+962", phoneNumber: phone, password: "console-pass-1", agreeToReminder: true },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; user: { id: string } };
  return { token: body.token, userId: body.user.id, phone };
}

/** A second browser, signed in as an ordinary person, to watch the user app follow the console. */
async function userApp(browser: Browser, person: Person, lang: Lang): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    locale: lang === "ar" ? "ar" : "en-US",
    viewport: { width: 390, height: 844 },
  });
  await context.addInitScript(
    ({ token, userId, lang }: { token: string; userId: string; lang: Lang }) => {
      localStorage.setItem("token", token);
      localStorage.setItem("userId", userId);
      localStorage.setItem("i18nextLng", lang);
    },
    { token: person.token, userId: person.userId, lang },
  );
  return { context, page: await context.newPage() };
}

/** Puts the shared server back as the other suites expect it: no E2E stories, members or settings left over. */
async function cleanUp(request: APIRequestContext, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const stories = (await (await request.get("/api/admin/stories", { headers })).json()) as { id: string; titleEn: string }[];
  for (const s of stories.filter((s) => s.titleEn.startsWith("E2E ")))
    await request.delete(`/api/admin/stories/${s.id}`, { headers });
  const characters = (await (await request.get("/api/admin/characters", { headers })).json()) as { id: string; nameEn: string }[];
  for (const c of characters.filter((c) => c.nameEn.startsWith("E2E ")))
    await request.delete(`/api/admin/characters/${c.id}`, { headers });
  await request.put("/api/admin/settings", {
    headers,
    data: { titleEn: "Hikaya", titleAr: "حكاية", primaryColor: "#237a47", siteUnderMaintenance: false },
  });
}

test.afterAll(async ({ playwright }) => {
  const request = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
  await cleanUp(request, await adminToken(request));
  await request.dispose();
});

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
  await page.getByLabel(s.story.videoFile, { exact: true }).setInputFiles(join(FILES, "documents/terms.pdf"));
  await expect(
    page.locator(".admin-upload").getByRole("alert").filter({ hasText: COMMON[lang].errors.unsupported_media_type }),
  ).toBeVisible();
  await c.upload(s.story.videoFile, VIDEO);
  await expect(page.locator("video.admin-preview")).toHaveAttribute("src", /\/storage\/v1\/object\/public\/videos\/.+\.mp4$/);
  await c.settle();
  await shot("admin-story-new");
  await page.getByRole("button", { name: s.story.create }).click();
  await expect(c.toast(s.story.created)).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/stories\/[0-9a-f-]{36}$/);
  const storyId = page.url().split("/").pop() as string;

  // Its thumbnail, named by the story id.
  await c.upload(s.story.thumbnailFile, THUMBNAIL);
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
  await c.upload(s.characters.thumbnail, PICTURE);
  await c.upload(s.characters.audio, AUDIO);
  await form.getByRole("button", { name: s.common.save }).click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId("character").filter({ hasText: memberEn })).toBeVisible();
  await c.settle();
  await shot("admin-characters");

  // A question on the story, answered by the new family member.
  await page.goto(`/admin/stories/${storyId}`);
  await expect(page.getByRole("heading", { level: 1, name: s.story.editTitle })).toBeVisible();
  await c.upload(s.questions.addMedia, QUESTION_VIDEO);
  await expect(c.toast(s.questions.added)).toBeVisible();
  const question = page.getByTestId("question").first();
  await expect(question.getByRole("heading", { name: s.questions.number.replace("{{n}}", "1") })).toBeVisible();
  await question.getByLabel(s.questions.character, { exact: true }).selectOption({ label: lang === "ar" ? memberAr : memberEn });
  await question.getByLabel(s.questions.answerAudio, { exact: true }).setInputFiles(ANSWER_AUDIO);
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
  const recorded = await request.post("/api/story/audio/add", {
    headers: { authorization: `Bearer ${person.token}` },
    multipart: {
      story: storyId,
      index: "1",
      audio: { name: "audio.mp3", mimeType: "audio/mp4", buffer: readFileSync(ANSWER_AUDIO) },
    },
  });
  expect(recorded.status(), await recorded.text()).toBe(200);

  // Maintenance mode: with a confirmation, the user app goes offline, then comes back.
  await c.go(s.nav.settings, s.settings.title);
  const maintenance = page.getByRole("switch", { name: s.settings.maintenanceSwitch });
  await expect(maintenance).toHaveAttribute("aria-checked", "false");
  await c.settle();
  await shot("admin-settings");
  await maintenance.click();
  const dialog = page.getByRole("dialog", { name: s.settings.confirmOnTitle });
  await expect(dialog).toBeVisible();
  await shot("admin-settings-confirm");
  await dialog.getByRole("button", { name: s.settings.confirmOn }).click();
  await expect(c.toast(s.settings.maintenanceNowOn)).toBeVisible();
  await expect(maintenance).toHaveAttribute("aria-checked", "true");
  await user.page.goto("/");
  await expect(user.page.getByRole("heading", { name: COMMON[lang].maintenance.title })).toBeVisible();
  // The console itself is never gated.
  await page.reload();
  await expect(maintenance).toHaveAttribute("aria-checked", "true");
  await maintenance.click();
  await page
    .getByRole("dialog", { name: s.settings.confirmOffTitle })
    .getByRole("button", { name: s.settings.confirmOff })
    .click();
  await expect(maintenance).toHaveAttribute("aria-checked", "false");
  await user.page.goto("/");
  await expect(user.page.locator(".story-card").first().locator(".story-card__title")).toHaveText(title);

  // Title and colour reach open apps without a reload (the app polls the settings).
  await page.getByLabel(s.settings.titleEn, { exact: true }).fill("Hikaya E2E");
  await page.getByLabel(s.settings.titleAr, { exact: true }).fill("حكاية تجربة");
  await page.getByLabel(s.settings.color, { exact: true }).fill("#1e63b4");
  await expect(page.locator(".admin-phone-preview")).toHaveAttribute("style", /--preview:\s*#1e63b4/);
  await page.getByRole("button", { name: s.common.save }).click();
  await expect(c.toast(s.settings.saved)).toBeVisible();
  await expect.poll(() => user.page.title(), { timeout: 30_000 }).toBe(lang === "ar" ? "حكاية تجربة" : "Hikaya E2E");
  await expect
    .poll(() => user.page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--primary").trim()), {
      timeout: 30_000,
    })
    .toBe("#1e63b4");
  await user.context.close();
  await page.getByLabel(s.settings.titleEn, { exact: true }).fill("Hikaya");
  await page.getByLabel(s.settings.titleAr, { exact: true }).fill("حكاية");
  await page.getByLabel(s.settings.color, { exact: true }).fill("#237a47");
  await page.getByRole("button", { name: s.common.save }).click();
  await expect(c.toast(s.settings.saved).first()).toBeVisible();

  // Every other console page, and the audit log naming each change.
  await c.go(s.nav.media, s.media.title);
  await expect(page.getByTestId("instruction")).toHaveCount(7);
  await c.settle();
  await shot("admin-media");
  await c.go(s.nav.users, s.users.title);
  await page.getByPlaceholder(s.users.search).fill("9627");
  await expect(page.locator(".admin-table tbody tr").first()).toBeVisible();
  await c.settle();
  await shot("admin-users");
  await page.goto(`/admin/users/${person.userId}`);
  await expect(page.getByRole("heading", { name: s.users.profile })).toBeVisible();
  const recording = page.getByTestId("recording").first();
  await expect(recording).toContainText(title);
  await recording.getByRole("button", { name: s.users.play }).click();
  await expect(recording.locator("audio")).toHaveAttribute("src", /^blob:/);
  await c.settle();
  await shot("admin-user");
  // The Contact Us inbox: a message from the user app, marked handled here.
  const contactName = `E2E Sara ${stamp}`;
  const sent = await request.post("/api/contactSubmission", {
    data: {
      name: contactName,
      phone: "+962791112223",
      city: "Amman",
      country: "Jordan",
      gender: "Female",
      message: "Hello from the contact form",
    },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  await c.go(s.nav.contact, s.contact.title);
  const message = page.locator(".admin-message").filter({ hasText: contactName });
  await expect(message).toBeVisible();
  await c.settle();
  await shot("admin-contact");
  await message.getByRole("button", { name: s.contact.markHandled }).click();
  await expect(c.toast(s.contact.markedHandled)).toBeVisible();
  await expect(message).toBeHidden();
  await page.getByRole("tab", { name: s.contact.handled }).click();
  await expect(page.locator(".admin-message").filter({ hasText: contactName })).toBeVisible();
  // A forgotten password sends a one-time code: the default provider writes it to the outbox.
  expect((await request.post("/api/send-otp", { data: { country: "+962", phoneNumber: person.phone } })).status()).toBe(200);
  await c.go(s.nav.outbox, s.outbox.title);
  await page.getByPlaceholder(s.outbox.search).fill(`+962${person.phone}`);
  await expect(page.locator(".admin-table tbody tr").filter({ hasText: person.phone }).first()).toBeVisible({ timeout: 20_000 });
  await c.settle();
  await shot("admin-outbox");
  await c.go(s.nav.analytics, s.analytics.title);
  await expect(page.getByRole("heading", { name: s.analytics.funnel })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: s.analytics.csv }).click();
  expect((await download).suggestedFilename()).toMatch(/^hikaya-analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  await c.settle();
  await shot("admin-analytics");
  await c.go(s.nav.audit, s.audit.title);
  for (const action of [
    "story.create",
    "story.thumbnail",
    "story.publish",
    "character.create",
    "question.create",
    "answer.create",
    "story.reorder",
    "settings.maintenance_on",
    "settings.maintenance_off",
  ] as const) {
    // Each entry reads as a sentence: the part of it after the operator's name and before the first name it quotes.
    const words = (s.audit.sentences[action].split("{{who}}")[1] ?? "").split("{{")[0] ?? "";
    await expect(page.getByTestId("audit-sentence").filter({ hasText: words.trim() }).first()).toBeVisible();
  }
  await c.settle();
  await shot("admin-audit");

  // The Message Center's facilitator inbox opens inside the same frame, when it is part of the build.
  if (await c.nav(s.nav.inbox).count()) {
    await c.nav(s.nav.inbox).click();
    await expect(page).toHaveURL(/\/admin\/inbox$/);
    await expect(page.locator("#admin-main").getByRole("heading").first()).toBeVisible();
    await expect(page.getByRole("heading", { name: s.notFound })).toHaveCount(0);
    await c.settle();
    await shot("admin-inbox");
  }

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

/** A console signed in as the E2E operator in a browser context of its own (a second tab of theirs). */
async function consoleTab(browser: Browser, lang: Lang): Promise<{ context: BrowserContext; c: Console }> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    locale: lang === "ar" ? "ar" : "en-US",
    viewport: LAPTOP,
  });
  await context.addInitScript((l: Lang) => localStorage.setItem("i18nextLng", l), lang);
  const c = new Console(await context.newPage(), lang);
  await c.signIn();
  await c.submitSignIn();
  return { context, c };
}

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
  const media = await upload("question-media", QUESTION_VIDEO, "video/mp4");
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
  await one.c.page.getByTestId("question").getByLabel(s.questions.replaceMedia, { exact: true }).setInputFiles(VIDEO);
  // The saved question comes back with its new private copy of the video.
  await expect(oneVideo).not.toHaveAttribute("src", new RegExp(originalName), { timeout: 20_000 });
  const storedName = nameOf(await oneVideo.getAttribute("src"));
  expect(storedName).toMatch(/\.mp4$/);
  await two.c.page.getByTestId("question").getByLabel(s.questions.replaceMedia, { exact: true }).setInputFiles(VIDEO);
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

test("a non-admin is refused everywhere", async ({ page, lang, shot, request, browser }) => {
  const s = ADMIN_STRINGS[lang];
  const person = await signUp(request);
  // A visitor: no token.
  await page.goto("/admin/stories");
  await expect(page.getByRole("heading", { name: s.guard.signedOutTitle })).toBeVisible();
  // The console's words follow a language switch (its strings load with it, in either language).
  const other = lang === "ar" ? "en" : "ar";
  await page.getByRole("button", { name: new RegExp(COMMON[lang].language.label) }).click();
  await expect(page.getByRole("heading", { name: ADMIN_STRINGS[other].guard.signedOutTitle })).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("dir", other === "ar" ? "rtl" : "ltr");
  await page.getByRole("button", { name: new RegExp(COMMON[other].language.label) }).click();
  await expect(page.getByRole("heading", { name: s.guard.signedOutTitle })).toBeVisible();
  // A family member signed in to the app: the console keeps its own session and does not borrow theirs.
  const user = await userApp(browser, person, lang);
  await user.page.setViewportSize(LAPTOP);
  await user.page.goto("/admin/stories");
  await expect(user.page.getByRole("heading", { name: s.guard.signedOutTitle })).toBeVisible();
  // A console session whose token is not an operator's (say, an operator whose role was taken away).
  await user.page.evaluate(
    ({ token, userId }) =>
      localStorage.setItem(
        "hikaya-console-auth",
        JSON.stringify({
          access_token: token,
          refresh_token: "unused",
          expires_at: Date.now() / 1000 + 3600,
          user: { id: userId },
        }),
      ),
    { token: person.token, userId: person.userId },
  );
  for (const path of ["/admin", "/admin/stories", "/admin/settings", "/admin/users", "/admin/audit"]) {
    await user.page.goto(path);
    await expect(user.page.getByRole("heading", { name: s.guard.notAllowedTitle })).toBeVisible();
    await expect(user.page.getByRole("link", { name: s.guard.toLogin })).toHaveAttribute("href", "/login");
    await expect(user.page.locator(".admin-nav")).toHaveCount(0);
  }
  await user.page.screenshot({ path: resolve(import.meta.dirname, "..", "screenshots", lang, "admin-not-allowed.png") });
  await user.context.close();
  await shot("admin-signed-out");

  const endpoints: [string, string][] = [
    ["GET", "/api/admin/stories"],
    ["POST", "/api/admin/stories"],
    ["POST", "/api/admin/stories/reorder"],
    ["POST", "/api/admin/uploads/story-video"],
    ["GET", "/api/admin/settings"],
    ["PUT", "/api/admin/settings"],
    ["GET", "/api/admin/audit"],
    ["GET", "/api/admin/analytics"],
    ["GET", "/api/admin/sms-outbox"],
    ["GET", "/api/users"],
  ];
  for (const [method, url] of endpoints) {
    const asVisitor = await request.fetch(url, { method, data: method === "GET" ? undefined : {} });
    expect(asVisitor.status(), `${method} ${url} as visitor`).toBe(401);
    const asUser = await request.fetch(url, {
      method,
      headers: { authorization: `Bearer ${person.token}` },
      data: method === "GET" ? undefined : {},
    });
    expect(asUser.status(), `${method} ${url} as user`).toBe(403);
  }
  // Nothing changed on the way.
  const settings = (await (await request.get("/api/settings")).json()) as { siteUnderMaintenance: boolean };
  expect(settings.siteUnderMaintenance).toBe(false);
});
