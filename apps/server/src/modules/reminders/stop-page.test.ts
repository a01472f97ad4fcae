import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { saveSiteSettings } from "../settings/settings.service.ts";
import { addPerson } from "./reminders.test-helpers.ts";
import { createStopToken } from "./stop-links.ts";
import { stopPage } from "./stop-page.ts";

let t: TestApp;
let app: App;
beforeAll(async () => {
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0", PUBLIC_URL: "https://hikaya.test" });
  app = t.app;
});
afterAll(async () => t?.close());

describe("the stop-reminders page", () => {
  it("wears the app's colours and font and leads home, in both languages, with no script", () => {
    for (const language of ["en", "ar"] as const) {
      for (const state of ["ask", "done", "used", "invalid"] as const) {
        const html = stopPage(language, state, "tok");
        expect(html).toContain(`<html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}">`);
        expect(html).toMatch(/<a class="button button--home" href="\/">[^<]+<\/a>/);
        // The app's palette and font stack (apps/web/src/styles), not the old purple page.
        expect(html).toContain("--primary:#237a47");
        expect(html).toContain('"Noto Sans Arabic"');
        expect(html).not.toContain("#7a3e9d");
        // The CSP allows no inline script: the page must work without one.
        expect(html).not.toMatch(/<script|\son[a-z]+=/i);
      }
    }
    expect(stopPage("ar", "done")).toContain(">الذهاب إلى حكاية</a>");
    expect(stopPage("en", "done")).toContain(">Go to Hikaya</a>");
    // Logical properties only, so the Arabic page lays out from the right.
    expect(stopPage("ar", "ask")).not.toMatch(/(margin|padding)-(left|right)|text-align:(left|right)/);
  });

  it("takes only a #rrggbb colour into its CSS", () => {
    expect(stopPage("en", "done", "", "#aa3300")).toContain("--primary:#aa3300");
    const tampered = stopPage("en", "done", "", "red;}</style><script>alert(1)</script>");
    expect(tampered).toContain("--primary:#237a47");
    expect(tampered).not.toContain("<script");
  });

  it("is served in the site's colour, under a policy that runs no inline script", async () => {
    await saveSiteSettings(app.deps.db, {
      titleEn: "Hikaya",
      titleAr: "حكاية",
      primaryColor: "#1565c0",
      siteUnderMaintenance: false,
      updatedAt: new Date().toISOString(),
    });
    const person = await addPerson(app, { joinedAt: new Date(), language: "ar" });
    const token = createStopToken(app.deps.auth.keys.hmacSecret, { userId: person.id, tokenId: "page-1", language: "ar" });
    const page = await app.inject({ url: `/api/reminders/stop?token=${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("--primary:#1565c0");
    expect(page.body).toContain('dir="rtl"');
    expect(page.body).toContain('href="/"');
    const csp = String(page.headers["content-security-policy"] ?? "");
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });
});
