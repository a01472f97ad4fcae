import type { ReminderJob, ReminderQueuePage, ReminderSettings, ReminderSettingsInput } from "@hikaya/contracts";
import type { APIRequestContext, Browser } from "@playwright/test";
import { AccountPages, dismissToasts } from "../pages/account.ts";
import { ADMIN_STRINGS, adminToken } from "../pages/admin.ts";
import { createUser, type TestUser, watchUpTo } from "../pages/journey.ts";
import { facilitatorSession, storeSession } from "../pages/messages.ts";
import { expect, type Lang, test } from "../support/fixtures.ts";

/**
 * Reminders as they reach people (issue 28): at the hour of the zone the person's browser reported, naming only a
 * story the family can open, and never to a blocked account. Each test sets the rules it needs (restored in
 * `finally`) and runs the due reminders once; the e2e server is shared, so other people may be reminded in the
 * same run: only this test's own people, by phone number, are looked at.
 */

interface OutboxMessage {
  recipient: string;
  body: string;
  purpose: string | null;
  createdAt: string;
}

interface PublicStory {
  id: string;
  order: number;
  title: string;
  titleB: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Minutes since local midnight in `timeZone` at `at`. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part("hour") * 60 + part("minute");
}

const hhmm = (minutes: number) => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
};

/** Whether `minutes` lies in the window [start, end), which may run past midnight. */
function insideWindow(minutes: number, start: string, end: string): boolean {
  const [s, e] = [start, end].map((t) => {
    const [h, m] = t.split(":").map(Number);
    return (h ?? 0) * 60 + (m ?? 0);
  }) as [number, number];
  return s < e ? minutes >= s && minutes < e : minutes >= s || minutes < e;
}

/** The reminder rules as the operator left them, and a way to put them back. */
async function reminderRules(request: APIRequestContext) {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const res = await request.get("/api/admin/reminders/settings", { headers });
  expect(res.status()).toBe(200);
  const original = (await res.json()) as ReminderSettings;
  const { placeholders: _p, updatedAt: _u, version: _v, ...input } = original;
  const put = async (rules: ReminderSettingsInput) => {
    // No `version`: these saves are the test's own and may follow any other.
    const saved = await request.put("/api/admin/reminders/settings", { headers, data: rules });
    expect(saved.status(), await saved.text()).toBe(200);
  };
  return {
    original,
    /** Reminders on, the first one as soon as the next story is there, at most one per story so far, in this window. */
    set: (windowStart: string, windowEnd: string) =>
      put({ ...input, enabled: true, firstAfterHours: 0, maxPerStory: Math.max(1, input.maxPerStory), windowStart, windowEnd }),
    restore: () => put(input),
  };
}

/** Sends the reminders due now, as the console's button does. */
async function runDue(request: APIRequestContext) {
  const res = await request.post("/api/admin/reminders/run", {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** The reminders texted to one number (the SMS outbox, newest first). */
async function remindersTo(request: APIRequestContext, e164: string): Promise<OutboxMessage[]> {
  const res = await request.get(`/api/admin/sms-outbox?recipient=${encodeURIComponent(e164)}&limit=50`, {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
  });
  expect(res.status()).toBe(200);
  const { messages } = (await res.json()) as { messages: OutboxMessage[] };
  return messages.filter((m) => m.purpose?.startsWith("reminder:"));
}

/** A person's job in the reminder queue (paged through: one run plans a job for every consenting person). */
async function queuedJob(request: APIRequestContext, userId: string): Promise<ReminderJob | undefined> {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  let before: string | null = null;
  do {
    const query: string = `/api/admin/reminders/queue?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`;
    const res = await request.get(query, { headers });
    expect(res.status()).toBe(200);
    const page = (await res.json()) as ReminderQueuePage;
    const job = page.jobs.find((j) => j.userId === userId);
    if (job) return job;
    before = page.nextBefore;
  } while (before);
  return undefined;
}

async function publishedStories(request: APIRequestContext): Promise<PublicStory[]> {
  const res = await request.get("/api/stories");
  expect(res.status()).toBe(200);
  return ((await res.json()) as PublicStory[]).sort((a, b) => a.order - b.order);
}

/**
 * What the template in `language` becomes for `story`: its fixed words around the placeholders, the story's title
 * in that language and a link to it.
 */
function reminderText(template: string, language: Lang, story: PublicStory): RegExp {
  const title = language === "ar" ? story.titleB : story.title;
  const values: Record<string, string> = {
    name: "[\\s\\S]+?",
    story: escapeRegExp(title),
    link: `\\S*/story/${escapeRegExp(encodeURIComponent(story.id))}`,
    stopLink: "\\S+",
  };
  const pattern = template
    .split(/(\{[^{}]*\})/)
    .map((piece) => (/^\{\w+\}$/.test(piece) ? (values[piece.slice(1, -1)] ?? escapeRegExp(piece)) : escapeRegExp(piece)))
    .join("");
  return new RegExp(`^${pattern}$`);
}

/** createUser's people have Jordanian numbers (+962). */
const phoneOf = (user: TestUser) => `+962${user.phone}`;

/** A US number (+1) nobody else in this run has: the area code given, an exchange and line at random. */
const usNumber = (areaCode: string) => `${areaCode}5${String(Math.floor(Math.random() * 1_000_000)).padStart(6, "0")}`;

/**
 * A person signs up on the phone sign-up form (/arabic-register; in English with ?lng=en) with a US number, in a
 * browser whose clock is in `timeZone`: the app reports that zone to the profile, and the test waits until it has.
 */
async function signUpInBrowser(browser: Browser, lang: Lang, timeZone: string, national: string) {
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    viewport: { width: 390, height: 844 },
    locale: lang === "ar" ? "ar" : "en-US",
    timezoneId: timeZone,
  });
  try {
    await context.addInitScript((l: string) => localStorage.setItem("i18nextLng", l), lang);
    const page = await context.newPage();
    const p = new AccountPages(page, lang);
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(timeZone);
    await page.goto(lang === "ar" ? "/arabic-register" : "/arabic-register?lng=en");
    await p.expectRtl();
    const us = lang === "ar" ? "الولايات المتحدة" : "United States";
    await p.country.choose(us, us);
    await p.phone.fill(national);
    await p.password.fill("reminder-pass-1");
    await dismissToasts(page);
    const reported = page.waitForResponse((r) => r.url().endsWith("/profile/update") && r.request().method() === "POST");
    await p.button(p.t.account.register.submit).click();
    await expect(page).toHaveURL(/\/landing-page$/);
    const update = await reported;
    expect(update.status(), await update.text()).toBe(200);
    expect(update.request().postData() ?? "").toContain(timeZone);
    const userId = await page.evaluate(() => localStorage.getItem("userId"));
    expect(userId).toBeTruthy();
    return { userId: userId as string, e164: `+1${national}` };
  } finally {
    await context.close();
  }
}

test.describe("Reminders where people live", () => {
  test("a +1 person whose browser is in New York is reminded inside the window in New York time, in their language; one in Los Angeles waits", async ({
    page,
    browser,
    lang,
    request,
    shot,
  }) => {
    test.setTimeout(120_000);
    const rules = await reminderRules(request);
    // New York and Los Angeles both sign up with a +1 number: only their browsers tell them apart.
    const newYork = await signUpInBrowser(browser, lang, "America/New_York", usNumber("212"));
    const losAngeles = await signUpInBrowser(browser, lang, "America/Los_Angeles", usNumber("310"));

    // An hour around New York's present minute: Los Angeles (3 h behind), the first US zone listed
    // (America/Adak, 5 h behind) and UTC (4–5 h ahead) are all outside it.
    const nowInNewYork = localMinutes(new Date(), "America/New_York");
    const windowStart = hhmm(nowInNewYork - 30);
    const windowEnd = hhmm(nowInNewYork + 30);
    for (const zone of ["America/Los_Angeles", "America/Adak", "UTC"])
      expect(insideWindow(localMinutes(new Date(), zone), windowStart, windowEnd), zone).toBe(false);

    const staff = await facilitatorSession(request);
    await storeSession(page, staff, lang, "console");
    try {
      await rules.set(windowStart, windowEnd);

      // The operator sends the due reminders from the console.
      const a = ADMIN_STRINGS[lang].reminders;
      await page.goto("/admin/reminders");
      await expect(page.getByRole("heading", { level: 1, name: a.title })).toBeVisible();
      await page.getByRole("button", { name: a.runNow }).click();
      const ran = new RegExp(`^${escapeRegExp(a.ran).replace(/\\\{\\\{\w+\\\}\\\}/g, "\\d+")}$`);
      await expect(page.getByText(ran)).toBeVisible({ timeout: 60_000 });
      await shot("reminders-run-new-york");

      // New York: one reminder, in the language they signed up in, naming the first story, sent inside the window.
      const [first] = await publishedStories(request);
      if (!first) throw new Error("no published story");
      const sent = await remindersTo(request, newYork.e164);
      expect(sent).toHaveLength(1);
      const [reminder] = sent as [OutboxMessage];
      expect(reminder.body).toMatch(reminderText(rules.original.templates[lang], lang, first));
      const sentInNewYork = localMinutes(new Date(reminder.createdAt), "America/New_York");
      expect(insideWindow(sentInNewYork, windowStart, windowEnd), `sent at ${hhmm(sentInNewYork)} New York time`).toBe(true);

      // Los Angeles: nothing yet; the reminder waits in the queue until the window opens there, 2½ hours on
      // (give or take the hour of a daylight-saving change on the way; in Adak it would be 4½, in UTC almost a day).
      expect(await remindersTo(request, losAngeles.e164)).toEqual([]);
      const waiting = await queuedJob(request, losAngeles.userId);
      expect(waiting?.status).toBe("due");
      const waitMinutes = (Date.parse(waiting?.nextTryAt ?? "") - Date.parse(reminder.createdAt)) / 60_000;
      expect(waitMinutes).toBeGreaterThan(150 - 60 - 5);
      expect(waitMinutes).toBeLessThan(150 + 60 + 5);
      const queue = page.getByRole("heading", { level: 2, name: a.queue });
      await queue.scrollIntoViewIfNeeded();
      await expect(page.getByRole("tab", { name: new RegExp(`^${escapeRegExp(a.statuses.due)} \\(\\d+\\)`) })).toBeVisible();
      await shot("reminders-queue-after-run");
    } finally {
      await rules.restore();
    }
  });

  test("a family who watched every published story is not reminded of the operator's draft", async ({ lang, request }) => {
    test.setTimeout(90_000);
    const rules = await reminderRules(request);
    const headers = { authorization: `Bearer ${await adminToken(request)}` };
    const published = await publishedStories(request);
    const last = published.at(-1);
    if (!last) throw new Error("no published story");

    // Done: every published story watched. Control: all but the last, so the last one is theirs to watch.
    const done = await createUser(request, { language: lang });
    await watchUpTo(request, done, last.order);
    const control = await createUser(request, { language: lang });
    await watchUpTo(request, control, last.order - 1);

    // The draft comes right after the published stories: the place "done" would go next if drafts counted.
    const stamp = Date.now().toString(36);
    const draftTitle = { en: `E2E Draft ${stamp}`, ar: `مسودة ${stamp}` };
    const created = await request.post("/api/admin/stories", {
      headers,
      data: {
        titleEn: draftTitle.en,
        titleAr: draftTitle.ar,
        videoUrl: "https://youtu.be/hikaya",
        published: false,
        order: last.order + 1,
      },
    });
    expect(created.status(), await created.text()).toBe(200);
    const draft = (await created.json()) as { id: string; order: number; published: boolean };
    try {
      expect(draft).toMatchObject({ order: last.order + 1, published: false });
      await rules.set("00:00", "00:00"); // all day
      await runDue(request);

      const toControl = await remindersTo(request, phoneOf(control));
      expect(toControl).toHaveLength(1);
      expect(toControl[0]?.body).toMatch(reminderText(rules.original.templates[lang], lang, last));

      const toDone = await remindersTo(request, phoneOf(done));
      for (const m of toDone) {
        expect(m.body).not.toContain(draftTitle[lang]);
        expect(m.body).not.toContain(draft.id);
      }
      expect(toDone).toEqual([]);
    } finally {
      await rules.restore();
      const removed = await request.delete(`/api/admin/stories/${draft.id}`, { headers });
      expect(removed.status(), await removed.text()).toBe(200);
    }
  });

  test("a blocked person gets no reminder while one who is not blocked does, in the same run", async ({ lang, request }) => {
    test.setTimeout(90_000);
    const rules = await reminderRules(request);
    const headers = { authorization: `Bearer ${await adminToken(request)}` };
    const blocked = await createUser(request, { language: lang });
    const control = await createUser(request, { language: lang });
    // Blocked before the rules make either of them due.
    const block = await request.put(`/api/admin/users/${blocked.userId}/block`, { headers, data: { blocked: true } });
    expect(block.status(), await block.text()).toBe(200);
    try {
      await rules.set("00:00", "00:00"); // all day
      await runDue(request);

      const [first] = await publishedStories(request);
      if (!first) throw new Error("no published story");
      const toControl = await remindersTo(request, phoneOf(control));
      expect(toControl).toHaveLength(1);
      expect(toControl[0]?.body).toMatch(reminderText(rules.original.templates[lang], lang, first));
      expect(await remindersTo(request, phoneOf(blocked))).toEqual([]);
    } finally {
      await rules.restore();
    }
  });
});
