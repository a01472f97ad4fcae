import { Console } from "../pages/admin.ts";
import { COMMON } from "../pages/journey.ts";
import { cleanUpConsole, LAPTOP, signUp, userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// The console's settings reach the user app: maintenance mode (asked first), the site's title and colour.

test.afterAll(cleanUpConsole);

test("maintenance mode takes the user app offline and back; title and colour reach open apps", async ({
  page,
  lang,
  shot,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const person = await signUp(request);
  await page.setViewportSize(LAPTOP);
  await c.signIn();
  await c.submitSignIn();
  const user = await userApp(browser, person, lang);
  await user.page.goto("/");
  const firstTitle = (await user.page.locator(".story-card").first().locator(".story-card__title").textContent()) ?? "";
  expect(firstTitle).not.toBe("");

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
  await expect(user.page.locator(".story-card").first().locator(".story-card__title")).toHaveText(firstTitle);

  // Title and colour reach open apps without a reload (the app polls the settings).
  await page.getByLabel(s.settings.titleEn, { exact: true }).fill("Hikaya E2E");
  await page.getByLabel(s.settings.titleAr, { exact: true }).fill("حكاية تجربة");
  await page.getByLabel(s.settings.color, { exact: true }).fill("#1e63b4");
  await expect(page.locator(".admin-phone-preview")).toHaveAttribute("style", /--preview:\s*#1e63b4/);
  await page.getByRole("button", { name: s.common.save }).click();
  await expect(c.toast(s.settings.saved)).toBeVisible();
  // Each screen's title names the screen, then the site ("stories · Hikaya E2E").
  const site = lang === "ar" ? "حكاية تجربة" : "Hikaya E2E";
  await expect.poll(() => user.page.title(), { timeout: 30_000 }).toMatch(new RegExp(`(^| · )${site}$`));
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

  // The audit log names both switches.
  await c.go(s.nav.audit, s.audit.title);
  for (const action of ["settings.maintenance_on", "settings.maintenance_off"] as const)
    await expect(c.auditEntry(action)).toBeVisible();
});
