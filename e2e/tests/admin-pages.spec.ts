import { Console } from "../pages/admin.ts";
import { LAPTOP, signUp } from "../support/console-setup.ts";
import { expect, test } from "../support/fixtures.ts";

// The console's other pages, each doing its one job: media, people, the Contact Us inbox, the SMS outbox,
// analytics and the facilitators' inbox.

test("every other console page opens and does its job", async ({ page, lang, shot, request }) => {
  test.setTimeout(120_000);
  const c = new Console(page, lang);
  const s = c.s;
  const stamp = Date.now().toString(36);
  const person = await signUp(request);
  await page.setViewportSize(LAPTOP);
  await c.signIn();
  await c.submitSignIn();

  // Media and people.
  await c.go(s.nav.media, s.media.title);
  await expect(page.getByTestId("instruction")).toHaveCount(7);
  await c.settle();
  await shot("admin-media");
  await c.go(s.nav.users, s.users.title);
  await page.getByPlaceholder(s.users.search).fill("9627");
  await expect(page.locator(".admin-table tbody tr").first()).toBeVisible();
  await c.settle();
  await shot("admin-users");
  // The Contact Us inbox: a message from the user app, marked handled here.
  const contactName = `E2E Sara ${stamp}`;
  const sent = await request.post("/api/contactSubmission", {
    data: {
      name: contactName,
      phone: "+962791112223",
      city: "Amman",
      country: "Jordan",
      gender: "Female",
      message: "Hello from the contact form",
    },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  await c.go(s.nav.contact, s.contact.title);
  const message = page.locator(".admin-message").filter({ hasText: contactName });
  await expect(message).toBeVisible();
  await c.settle();
  await shot("admin-contact");
  await message.getByRole("button", { name: s.contact.markHandled }).click();
  await expect(c.toast(s.contact.markedHandled)).toBeVisible();
  await expect(message).toBeHidden();
  await page.getByRole("tab", { name: s.contact.handled }).click();
  await expect(page.locator(".admin-message").filter({ hasText: contactName })).toBeVisible();
  // A forgotten password sends a one-time code: the default provider writes it to the outbox.
  expect((await request.post("/api/send-otp", { data: { country: "+962", phoneNumber: person.phone } })).status()).toBe(200);
  await c.go(s.nav.outbox, s.outbox.title);
  await page.getByPlaceholder(s.outbox.search).fill(`+962${person.phone}`);
  await expect(page.locator(".admin-table tbody tr").filter({ hasText: person.phone }).first()).toBeVisible({ timeout: 20_000 });
  await c.settle();
  await shot("admin-outbox");
  await c.go(s.nav.analytics, s.analytics.title);
  await expect(page.getByRole("heading", { name: s.analytics.funnel })).toBeVisible();
  // How the team is doing: first-response time per week, and who waits longest.
  await expect(page.getByRole("heading", { name: s.analytics.firstResponse.title })).toBeVisible();
  await expect(page.getByRole("heading", { name: s.analytics.waiting.title })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: s.analytics.csv }).click();
  expect((await download).suggestedFilename()).toMatch(/^hikaya-analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  await c.settle();
  await shot("admin-analytics");

  // The Message Center's facilitator inbox opens inside the same frame, when it is part of the build.
  if (await c.nav(s.nav.inbox).count()) {
    await c.nav(s.nav.inbox).click();
    await expect(page).toHaveURL(/\/admin\/inbox$/);
    await expect(page.locator("#admin-main").getByRole("heading").first()).toBeVisible();
    await expect(page.getByRole("heading", { name: s.notFound })).toHaveCount(0);
    await c.settle();
    await shot("admin-inbox");
  }
});
