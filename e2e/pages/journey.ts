import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page } from "@playwright/test";
import arCommon from "../../apps/web/src/locales/ar/common.json" with { type: "json" };
import arStories from "../../apps/web/src/locales/ar/stories.json" with { type: "json" };
import enCommon from "../../apps/web/src/locales/en/common.json" with { type: "json" };
import enStories from "../../apps/web/src/locales/en/stories.json" with { type: "json" };
import { DEMO_FILES } from "../support/console-setup.ts";
import type { Lang } from "../support/fixtures.ts";

export const STRINGS = { en: enStories, ar: arStories } as const;
export const COMMON = { en: enCommon, ar: arCommon } as const;
export type Strings = typeof enStories;

export interface TestUser {
  token: string;
  userId: string;
  phone: string;
}

export interface ApiStory {
  id: string;
  order: number;
  watchStatus?: string;
  title: string;
  titleB: string;
}

/**
 * A new person, created directly through the phone sign-up API (spec section 7); `language` is the one the app
 * sends at sign-up (texts to them, reminders included, are written in it).
 */
export async function createUser(request: APIRequestContext, options: { language?: Lang } = {}): Promise<TestUser> {
  const phone = `79${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await request.post("/api/sign-up", {
    data: {
      country: "+962",
      phoneNumber: phone,
      password: "journey-pass-1",
      agreeToReminder: true,
      ...(options.language ? { language: options.language } : {}),
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; user: { id: string } };
  return { token: body.token, userId: body.user.id, phone };
}

export function auth(user: TestUser) {
  return { authorization: `Bearer ${user.token}` };
}

export async function stories(request: APIRequestContext, user: TestUser): Promise<ApiStory[]> {
  const res = await request.get("/api/stories", { headers: auth(user) });
  expect(res.status()).toBe(200);
  return ((await res.json()) as ApiStory[]).sort((a, b) => a.order - b.order);
}

export async function storyByOrder(request: APIRequestContext, user: TestUser, order: number): Promise<ApiStory> {
  const story = (await stories(request, user)).find((s) => s.order === order);
  if (!story) throw new Error(`no story ${order}`);
  return story;
}

/** A recording of the demo voice for a story's question `index`, through the token API as the recorder sends it. */
export async function recordThought(request: APIRequestContext, user: Pick<TestUser, "token">, storyId: string, index = 1) {
  const res = await request.post("/api/story/audio/add", {
    headers: { authorization: `Bearer ${user.token}` },
    multipart: {
      story: storyId,
      index: String(index),
      audio: { name: "audio.mp3", mimeType: "audio/mp4", buffer: readFileSync(DEMO_FILES.answerAudio) },
    },
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** Seeds progress: marks stories 1…n as watched, in order, as the player would. */
export async function watchUpTo(request: APIRequestContext, user: TestUser, n: number) {
  for (const story of await stories(request, user)) {
    if (story.order > n) break;
    const res = await request.post(`/api/users/${user.userId}/watchStory/${story.id}`, { headers: auth(user) });
    expect(res.status(), await res.text()).toBe(200);
  }
}

/** A family with a name to find them by in the console, who watched the first story and recorded a thought in it. */
export async function familyWithThought(request: APIRequestContext, name: string) {
  const person = await createUser(request);
  const named = await request.post("/api/users", { headers: auth(person), data: { id: person.userId, name } });
  expect(named.status(), await named.text()).toBe(200);
  await watchUpTo(request, person, 1);
  const first = await storyByOrder(request, person, 1);
  await recordThought(request, person, first.id);
  return { person, first };
}

/** Puts the session where lib/session.ts reads it, before any page script runs. */
export async function signIn(page: Page, user: TestUser) {
  await page.addInitScript(
    ({ token, userId }) => {
      localStorage.setItem("token", token);
      localStorage.setItem("userId", userId);
    },
    { token: user.token, userId: user.userId },
  );
}

/** No serious or critical axe-core violation on the current screen. */
export async function expectAccessible(page: Page) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map(
      (v) =>
        `${v.id}: ${v.nodes.map((n) => `${n.target.join(" ")} ${n.html.slice(0, 120)} ${n.failureSummary ?? ""}`).join(", ")}`,
    ),
  ).toEqual([]);
}

/** Page object for the story journey screens. */
export class Journey {
  readonly page: Page;
  readonly lang: Lang;
  readonly s: Strings;
  constructor(page: Page, lang: Lang) {
    this.page = page;
    this.lang = lang;
    this.s = STRINGS[lang] as Strings;
  }

  card(order: number) {
    return this.page.locator(".story-card").nth(order - 1);
  }

  menuButton() {
    return this.page.getByRole("button", { name: this.s.menu.open });
  }

  async openMenu() {
    await this.menuButton().click();
    await expect(this.page.getByRole("dialog", { name: this.s.menu.label })).toBeVisible();
    // Let the fade-in finish before looking at it.
    await this.page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
  }

  async closeMenu() {
    await this.page.getByRole("dialog", { name: this.s.menu.label }).getByRole("button", { name: this.s.menu.close }).click();
    await expect(this.page.getByRole("dialog", { name: this.s.menu.label })).toBeHidden();
  }

  /**
   * Moves a media element to its end, as if it had played through. A short clip may end on its own between the
   * caller's look and this call (the flow has moved on): then there is nothing to finish.
   */
  async finishMedia(selector: string) {
    await this.page.evaluate((s) => {
      const el = document.querySelector<HTMLMediaElement>(s);
      if (!el) return;
      el.pause();
      el.dispatchEvent(new Event("ended"));
    }, selector);
  }

  /** Plays through every question and answer until the flow leaves /questions. */
  async playThroughQuestions(onAnswers?: () => Promise<void>) {
    let answersSeen = false;
    for (let i = 0; i < 40 && /\/questions\//.test(this.page.url()); i++) {
      const audio = this.page.locator(".answer--playing audio");
      if (await audio.count()) {
        if (!answersSeen && onAnswers) await onAnswers();
        answersSeen = true;
        await this.finishMedia(".answer--playing audio");
      } else {
        await expect(this.page.locator("video.player__video")).toBeVisible();
        await this.finishMedia("video.player__video");
      }
      await this.page.waitForTimeout(100);
    }
  }

  micButton() {
    return this.page.getByRole("button", { name: this.s.recording.hold });
  }

  /** Press and hold the microphone with the mouse for ms milliseconds. */
  async holdToRecord(ms = 1500) {
    // hover() waits until the button is visible and has stopped moving (an image above it may still be loading),
    // then puts the pointer on it: a box read once could point at where the button was before the layout settled.
    await this.micButton().hover();
    await this.page.mouse.down();
    await expect(this.page.locator(".mic--recording")).toBeVisible();
    await this.page.waitForTimeout(ms);
    await this.page.mouse.up();
    await expect(this.page.getByRole("button", { name: this.s.recording.delete })).toBeVisible();
  }

  toast(text: string) {
    return this.page.locator(".toast").filter({ hasText: text });
  }

  /** Toasts close on tap; one at the bottom can sit over the buttons a test wants next. */
  async dismissToast(text: string) {
    await this.toast(text).dispatchEvent("click");
    await expect(this.toast(text)).toHaveCount(0);
  }
}
