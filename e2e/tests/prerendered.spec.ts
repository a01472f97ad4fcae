import { readFileSync } from "node:fs";
import { TEXT } from "../pages/account.ts";
import { adminToken } from "../pages/admin.ts";
import { DEMO_FILES } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";
import { openServerDatabase } from "../support/seed-inbox.ts";

/** The public screens arrive as HTML in the person's language (apps/web build/prerender.ts), then React hydrates them. */

// A first visit, as the server answers it: once the service worker is in, it answers navigations with the app's shell
// from its cache (rendered afresh, which is as fast), so these tests keep it out.
test.use({ serviceWorkers: "block" });
const SCREENS = [
  { path: "/login", heading: (t: (typeof TEXT)["en"]) => t.account.login.title },
  { path: "/register", heading: (t: (typeof TEXT)["en"]) => t.account.register.title },
  { path: "/forgot-password", heading: (t: (typeof TEXT)["en"]) => t.account.forgot.title },
] as const;

test("with JavaScript off, the landing and account screens are real pages in the visitor's language", async ({
  browser,
  lang,
  baseURL,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false, locale: lang, baseURL });
  const page = await context.newPage();
  try {
    for (const { path, heading } of SCREENS) {
      await page.goto(path);
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.locator("html")).toHaveAttribute("dir", lang === "ar" ? "rtl" : "ltr");
      await expect(page.getByRole("heading", { level: 1, name: heading(TEXT[lang]) })).toBeVisible();
    }
    await page.goto("/login");
    await expect(page.getByRole("button", { name: TEXT[lang].account.login.submit })).toBeVisible();
    await page.goto("/landing");
    await expect(page.getByRole("button", { name: TEXT[lang].common.landing.skip })).toBeVisible();
  } finally {
    await context.close();
  }
});

test("with JavaScript off, /landing shows its intro video with its poster, and terms and privacy their documents", async ({
  browser,
  request,
  lang,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // A processed intro (the e2e server does not process the demo's): the demo clip uploaded as an instruction video,
  // which is processed at upload, then made the landing's in both languages straight in the database, since the
  // console's own save would delete the demo's intro file it replaced.
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const upload = await request.post("/api/admin/uploads/instruction", {
    headers,
    multipart: { file: { name: "intro.mp4", mimeType: "video/mp4", buffer: readFileSync(DEMO_FILES.video) } },
  });
  expect(upload.status(), await upload.text()).toBe(200);
  const src = ((await upload.json()) as { path: string }).path;
  const posterOf = async () =>
    ((await (await request.get(`/api/media/stream?src=${encodeURIComponent(src)}`)).json()) as { poster: string | null }).poster;
  await expect.poll(posterOf, { timeout: 60_000 }).not.toBeNull();
  const poster = (await posterOf()) as string;
  const db = openServerDatabase();
  const intro = "select media_path, media_path_ar from instructions where location = 'Landing Page'";
  const before = db.prepare(intro).get() as { media_path: string; media_path_ar: string | null };
  const setIntro = db.prepare("update instructions set media_path = ?, media_path_ar = ? where location = 'Landing Page'");
  setIntro.run(src, src);
  const context = await browser.newContext({ javaScriptEnabled: false, locale: lang, baseURL });
  const page = await context.newPage();
  try {
    await page.goto("/landing");
    const video = page.getByRole("main").locator("video");
    await expect(video).toBeVisible();
    await expect(video).toHaveAttribute("poster", poster);
    await expect(video).toHaveAttribute("src", src);
    // Without scripts its own controls play it; nothing is fetched before that tap.
    await expect(video).toHaveAttribute("controls", "");
    await expect(video).toHaveAttribute("preload", "none");
    expect(await video.evaluate((v: HTMLVideoElement) => v.poster !== "" && v.readyState === 0)).toBe(true);

    const documents = (await (await request.get(`/api/get/contents?lang=${lang}`)).json()) as Record<string, string>;
    const t = TEXT[lang];
    await page.goto("/register");
    for (const [name, path, key] of [
      [t.account.links.terms, "/termandcondtion", "termsAndCondition"],
      [t.account.links.privacy, "/privacypolicy", "privacyAndPolicy"],
    ] as const) {
      await expect(page.getByRole("link", { name, exact: true })).toHaveAttribute("href", path);
      const shown = await context.newPage();
      await shown.goto(path);
      expect(documents[key]).toMatch(/\.pdf$/);
      await expect(shown.getByRole("link", { name: t.info.documents.download })).toHaveAttribute("href", documents[key] ?? "");
      await expect(shown.getByRole("status")).toHaveCount(0);
      await shown.close();
    }
  } finally {
    setIntro.run(before.media_path, before.media_path_ar);
    db.close();
    await context.close();
  }
});

test("React hydrates a prerendered screen without a warning and without moving it", async ({ page, lang }) => {
  const logged: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") logged.push(message.text());
  });
  page.on("pageerror", (error) => logged.push(error.message));
  for (const { path, heading } of SCREENS) {
    const response = await page.goto(path);
    expect(await response?.text()).toContain(`data-prerendered="${lang}"`);
    await expect(page.getByRole("heading", { level: 1, name: heading(TEXT[lang]) })).toBeVisible();
    // React has taken the page over: its root marker is on the container, and the screen still answers clicks.
    await expect
      .poll(() => page.evaluate(() => Object.keys(document.getElementById("root") ?? {}).some((k) => k.startsWith("__react"))))
      .toBe(true);
    const shift = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) total += (entry as unknown as { value: number }).value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => resolve(total), 300);
        }),
    );
    expect(shift, `${path}: layout shift`).toBeLessThan(0.02);
  }
  expect(logged.filter((m) => /hydrat|did not match|mismatch|react\.dev\/errors\/4(1[89]|2[0-9])/i.test(m))).toEqual([]);
});

test("a login value that arrives with only a change event (autofill) is kept and used", async ({ page, lang }) => {
  await page.goto("/login");
  const t = TEXT[lang].account;
  const username = page.getByLabel(t.fields.usernameOrPhone);
  const password = page.getByLabel(t.fields.password, { exact: true });
  await expect(username).toBeEditable();
  // Some autofill tools set the value and send `change` alone, never `input`.
  for (const [box, value] of [
    [username, "autofilled_person"],
    [password, "not-the-password"],
  ] as const) {
    await box.evaluate((input: HTMLInputElement, v) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, v);
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }, value);
  }
  // A re-render (the Remember Me box) must not empty them.
  await page.getByLabel(t.login.remember).click();
  await expect(username).toHaveValue("autofilled_person");
  await expect(password).toHaveValue("not-the-password");
  await page.getByRole("button", { name: t.login.submit }).click();
  // The form used the values: the server refused the credentials, the form did not say a box was empty.
  await expect(page.getByText(t.validation.usernameRequired)).toHaveCount(0);
  await expect(page.getByText(t.validation.passwordRequired)).toHaveCount(0);
  await expect(username).toHaveValue("autofilled_person");
});

test("the login's rules (the schema library) come when the person starts on the form, not with the page", async ({
  page,
  lang,
}) => {
  const t = TEXT[lang].account;
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  await page.goto("/login", { waitUntil: "networkidle" });
  await expect
    .poll(() => page.evaluate(() => Object.keys(document.getElementById("root") ?? {}).some((k) => k.startsWith("__react"))))
    .toBe(true);
  const withThePage = [...scripts];
  const arriving = page.waitForRequest((r) => r.resourceType() === "script" && !withThePage.includes(new URL(r.url()).pathname));
  await page.getByLabel(t.fields.usernameOrPhone, { exact: true }).focus();
  // Something the page had not loaded arrives now: the schemas the form checks its fields with.
  expect(withThePage).not.toContain(new URL((await arriving).url()).pathname);
});
