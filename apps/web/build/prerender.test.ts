import { describe, expect, it } from "vitest";
import { pageHtml } from "./prerender.ts";

const index = `<!doctype html>
<html lang="ar" dir="rtl">
  <head>
    <script type="module" crossorigin src="/assets/index-1.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/jsx-runtime-1.js">
    <link rel="stylesheet" crossorigin href="/assets/index-1.css">
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>`;

describe("a prerendered page", () => {
  const page = pageHtml(index, "<main><h1>Log in</h1></main>", "en", ["/assets/auth-screen-1.css"]);

  it("is the screen in its language and direction, marked for the entry to hydrate", () => {
    expect(page).toContain('<html lang="en" dir="ltr">');
    expect(page).toContain('<div id="root" data-prerendered="en"><main><h1>Log in</h1></main></div>');
    expect(pageHtml(index, "", "ar", [])).toContain('<html lang="ar" dir="rtl">');
  });

  it("links the screen's own stylesheets and lets its scripts wait behind them", () => {
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/assets/auth-screen-1.css">');
    expect(page).toContain('<script type="module" fetchpriority="low" crossorigin src="/assets/index-1.js">');
    expect(page).toContain('<link rel="modulepreload" fetchpriority="low" crossorigin href="/assets/jsx-runtime-1.js">');
    expect(page.indexOf("auth-screen-1.css")).toBeLessThan(page.indexOf("</head>"));
  });
});
