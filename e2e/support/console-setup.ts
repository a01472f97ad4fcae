import { join, resolve } from "node:path";
import type {
  APIRequestContext,
  Browser,
  BrowserContext,
  BrowserContextOptions,
  Page,
  PlaywrightWorkerArgs,
} from "@playwright/test";
import { adminToken, Console } from "../pages/admin.ts";
import { expect, type Lang } from "./fixtures.ts";

/** Set-up shared by the console's specs (admin-*.spec.ts): demo files to upload, people, second browsers, clean-up. */

const FILES = resolve(import.meta.dirname, "..", "..", "apps/server/demo/files");
export const DEMO_FILES = {
  pdf: join(FILES, "documents/terms.pdf"),
  video: join(FILES, "videos/story-01.mp4"),
  questionVideo: join(FILES, "question-media/s01-q1.mp4"),
  thumbnail: join(FILES, "thumbnails/story-02.jpg"),
  picture: join(FILES, "images/aunt.jpg"),
  audio: join(FILES, "audio/landing-aunt.m4a"),
  answerAudio: join(FILES, "audio/answers/s01-q1-aunt.m4a"),
};
export const LAPTOP = { width: 1280, height: 860 };

export interface Person {
  token: string;
  userId: string;
  phone: string;
}

/** A family member who signed up by phone (through the API). */
export async function signUp(request: APIRequestContext): Promise<Person> {
  const phone = `79${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await request.post("/api/sign-up", {
    data: { country: "+962", phoneNumber: phone, password: "console-pass-1", agreeToReminder: true },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; user: { id: string } };
  return { token: body.token, userId: body.user.id, phone };
}

/** Watches, through the API, every story before `storyId`, so it is the person's open one. */
export async function openStoryFor(request: APIRequestContext, person: Person, storyId: string): Promise<void> {
  const auth = { authorization: `Bearer ${person.token}` };
  const list = (await (await request.get("/api/stories", { headers: auth })).json()) as { id: string }[];
  for (const story of list) {
    if (story.id === storyId) break;
    const watched = await request.post(`/api/users/${person.userId}/watchStory/${story.id}`, { headers: auth });
    expect(watched.status(), await watched.text()).toBe(200);
  }
}

/** A second browser, signed in as an ordinary person, to watch the user app follow the console. */
export async function userApp(
  browser: Browser,
  person: Person,
  lang: Lang,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    locale: lang === "ar" ? "ar" : "en-US",
    viewport: { width: 390, height: 844 },
    ...options,
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

/** A console signed in as the E2E operator in a browser context of its own (a second tab of theirs). */
export async function consoleTab(browser: Browser, lang: Lang): Promise<{ context: BrowserContext; c: Console }> {
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

/**
 * Puts the shared server back as the other suites expect it: no E2E stories, members or settings left over.
 * For `test.afterAll`, so a failed test leaves nothing behind either.
 */
export async function cleanUpConsole({ playwright }: Pick<PlaywrightWorkerArgs, "playwright">) {
  const request = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
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
  await request.dispose();
}
