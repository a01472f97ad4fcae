import { describe, expect, it } from "vitest";
import { pageHtml } from "./prerender.ts";

const index = `<!doctype html>
<html lang="ar" dir="rtl">
  <head>
    <title>Hikaya · حكاية</title>
    <script type="module" crossorigin src="/assets/index-1.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/jsx-runtime-1.js">
    <link rel="stylesheet" crossorigin href="/assets/index-1.css">
  </head>
  <body>
    <div id="root"><p class="scripts-waiting" role="status"><span lang="en" dir="ltr">Hikaya is still loading.</span></p></div>
  </body>
</html>`;

describe("a prerendered page", () => {
  const page = pageHtml(index, "<main><h1>Log in</h1></main>", "en", ["/assets/auth-screen-1.css"], "Hikaya");

  it("is the screen in its language and direction, marked for the entry to hydrate", () => {
    expect(page).toContain('<html lang="en" dir="ltr">');
    expect(page).toContain('<div id="root" data-prerendered="en"><main><h1>Log in</h1></main></div>');
    expect(pageHtml(index, "", "ar", [], "حكاية")).toContain('<html lang="ar" dir="rtl">');
  });

  it("puts the screen in place of the note for missing scripts: the prerendered screen works without them", () => {
    expect(page).not.toContain("scripts-waiting");
  });

  it("names the screen in its title before any script runs, as the app names it after", () => {
    expect(page).toContain("<title>Log in · Hikaya</title>");
    const arabic = pageHtml(index, '<main><h1 class="x">تسجيل <span>الدخول</span></h1></main>', "ar", [], "حكاية");
    expect(arabic).toContain("<title>تسجيل الدخول · حكاية</title>");
    // A screen whose heading is the product's name (the landing page) is not named twice.
    expect(pageHtml(index, "<h1>Hikaya</h1>", "en", [], "Hikaya")).toContain("<title>Hikaya</title>");
  });

  it("links the screen's own stylesheets and lets its scripts wait behind them", () => {
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/assets/auth-screen-1.css">');
    expect(page).toContain('<script type="module" fetchpriority="low" crossorigin src="/assets/index-1.js">');
    expect(page).toContain('<link rel="modulepreload" fetchpriority="low" crossorigin href="/assets/jsx-runtime-1.js">');
    expect(page.indexOf("auth-screen-1.css")).toBeLessThan(page.indexOf("</head>"));
  });
});
