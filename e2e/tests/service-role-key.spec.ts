import { adminToken, Console } from "../pages/admin.ts";
import { expect, test } from "../support/fixtures.ts";

test("an admin shows the service-role key once, after a warning, and it works for admin calls", async ({
  page,
  lang,
  shot,
  request,
}) => {
  const c = new Console(page, lang);
  const s = c.s;
  await page.setViewportSize({ width: 1280, height: 860 });
  await c.signIn();
  await c.submitSignIn();
  await c.go(s.nav.settings, s.settings.title);

  const card = page.getByRole("region", { name: s.settings.serviceKeyTitle });
  await expect(card.getByText(s.settings.serviceKeyIntro)).toBeVisible();
  await expect(card.getByRole("textbox", { name: s.settings.serviceKeyLabel })).toHaveCount(0);

  // A warning first; cancelling shows nothing.
  await card.getByRole("button", { name: s.settings.serviceKeyShow }).click();
  const dialog = page.getByRole("dialog", { name: s.settings.serviceKeyConfirmTitle });
  await expect(dialog.getByText(s.settings.serviceKeyConfirmBody)).toBeVisible();
  await shot("admin-service-key-warning");
  await dialog.getByRole("button", { name: s.common.cancel }).click();
  await expect(card.getByRole("textbox", { name: s.settings.serviceKeyLabel })).toHaveCount(0);

  await card.getByRole("button", { name: s.settings.serviceKeyShow }).click();
  await page
    .getByRole("dialog", { name: s.settings.serviceKeyConfirmTitle })
    .getByRole("button", { name: s.settings.serviceKeyConfirm })
    .click();
  const field = card.getByRole("textbox", { name: s.settings.serviceKeyLabel });
  await expect(field).toBeVisible();
  await expect(card.getByText(s.settings.serviceKeyShown)).toBeVisible();
  const key = await field.inputValue();
  expect(key.split(".")).toHaveLength(3);
  await shot("admin-service-key-shown");

  // The key is what the README's server-to-server admin calls need.
  const users = await request.get("/auth/v1/admin/users", { headers: { apikey: key, authorization: `Bearer ${key}` } });
  expect(users.status()).toBe(200);
  // Shown once: it is not kept anywhere once the page is left.
  await c.go(s.nav.audit, s.audit.title);
  await c.go(s.nav.settings, s.settings.title);
  await expect(
    page.getByRole("region", { name: s.settings.serviceKeyTitle }).getByRole("textbox", { name: s.settings.serviceKeyLabel }),
  ).toHaveCount(0);
  // And the showing is in the audit log.
  const audit = await request.get("/api/admin/audit", { headers: { authorization: `Bearer ${await adminToken(request)}` } });
  const { entries } = (await audit.json()) as { entries: { action: string }[] };
  expect(entries.some((e) => e.action === "keys.service_role_shown")).toBe(true);
});
