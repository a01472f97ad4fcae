import { createUser, STRINGS, signIn, storyByOrder } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

// Words that depend on the device: the recorder's keyboard hint (Space or Enter) is for a keyboard and mouse,
// not for a phone's touch screen.

test.describe("the recorder's keyboard hint", () => {
  for (const touch of [false, true]) {
    test(touch ? "is not shown on a touch screen" : "is shown with a mouse", async ({ browser, baseURL, lang, request }) => {
      const person = await createUser(request);
      const story = await storyByOrder(request, person, 1);
      const context = await browser.newContext({
        baseURL,
        viewport: { width: 390, height: 844 },
        locale: lang,
        // The projects emulate a touch screen (hasTouch); a mouse is said here explicitly.
        hasTouch: touch,
        isMobile: touch,
      });
      try {
        const page = await context.newPage();
        await page.addInitScript((l) => localStorage.setItem("i18nextLng", l), lang);
        await signIn(page, person);
        await page.goto(`/start-recording/${story.id}/1`);
        const s = STRINGS[lang];
        await expect(page.getByText(s.recording.holdHint)).toBeVisible();
        const hint = page.getByText(s.recording.keyHint);
        if (touch) await expect(hint).toBeHidden();
        else await expect(hint).toBeVisible();
      } finally {
        await context.close();
      }
    });
  }
});
