import { resolve } from "node:path";
import { ADMIN_STRINGS } from "../pages/admin.ts";
import { COMMON } from "../pages/journey.ts";
import { LAPTOP, signUp, userApp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// Who may use the console: visitors and family members are refused, in the UI and by every admin endpoint.

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
