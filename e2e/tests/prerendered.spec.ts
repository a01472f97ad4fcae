import { TEXT } from "../pages/account.ts";
import { expect, test } from "../support/fixtures.ts";

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
