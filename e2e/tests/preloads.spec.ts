import { createUser, signIn } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

// The server's Link header preloads each screen's chunks and styles (modules/web/route-preloads.ts). Vite asks for
// a lazy screen's stylesheets with CORS (crossorigin); a preload without it does not match, so the file is fetched
// twice and Chromium warns on every screen that the preload was not used.

for (const path of ["/", "/edit-profile"]) {
  test(`${path} uses every preload its header names`, async ({ page, request }) => {
    await signIn(page, await createUser(request));
    const unused: string[] = [];
    page.on("console", (message) => {
      if (/preload.*not used/.test(message.text())) unused.push(message.text());
    });
    const response = await page.goto(path);
    expect(response?.headers().link ?? "", "the header names the screen's styles").toContain("as=style");
    await page.waitForLoadState("load");
    // Chromium reports an unused preload a few seconds after the load event.
    await page.waitForTimeout(5_000);
    expect(unused).toEqual([]);
  });
}
