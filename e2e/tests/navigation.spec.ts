import { AccountPages, createPhoneAccount, TEXT } from "../pages/account.ts";
import { COMMON, createUser, Journey, signIn, storyByOrder } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

/** What a person expects of moving between screens: each its own title, focus on its heading, its own place. */
test("a new screen starts at the top with its own title and focus; back returns to where the person was", async ({
  page,
  lang,
  request,
}) => {
  const user = await createUser(request);
  await signIn(page, user);
  const journey = new Journey(page, lang);
  const product = COMMON[lang].productTitle;
  const homeHeading = journey.s.home.header;
  await page.goto("/");
  await expect(journey.card(1)).toBeVisible();
  await expect(page).toHaveTitle(`${homeHeading} · ${product}`);

  // Down the story list, then Edit profile from the menu.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const listY = await page.evaluate(() => window.scrollY);
  expect(listY).toBeGreaterThan(200);
  await journey.openMenu();
  await page.getByRole("button", { name: journey.s.menu.editProfile }).click();
  await expect(page).toHaveURL(/\/edit-profile$/);
  const edit = TEXT[lang].account.edit;
  await expect(page).toHaveTitle(`${edit.title} · ${product}`);
  await expect(page.getByRole("heading", { level: 1, name: edit.title })).toBeFocused();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  // Back: the story list where the person left it, named again.
  await page.goBack();
  await expect(journey.card(1)).toBeAttached();
  await expect(page).toHaveTitle(`${homeHeading} · ${product}`);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(listY - 5);
  await expect(page.getByRole("heading", { level: 1, name: homeHeading })).toBeFocused();

  // Forward, and a deep link opened afresh: the screen with its title, from the top.
  await page.goForward();
  await expect(page).toHaveTitle(`${edit.title} · ${product}`);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.goto("/login");
  await expect(page).toHaveTitle(`${TEXT[lang].account.login.title} · ${product}`);
});

test("a story link opened signed out comes back to that story after signing in", async ({ page, lang, request }) => {
  const p = new AccountPages(page, lang);
  const account = await createPhoneAccount(request, "return-pass-1");
  const user = { token: account.token, userId: account.userId, phone: account.national };
  const first = await storyByOrder(request, user, 1);
  // A reminder's link, opened in a browser that is not signed in.
  await page.goto(`/story/${first.id}`);
  await expect(page).toHaveURL(/\/login$/);
  await p.expectToast(p.t.common.errors.unauthorized);
  const jordan = lang === "ar" ? "الأردن" : "Jordan";
  await p.country.choose(jordan, jordan);
  await p.field(p.t.account.fields.usernameOrPhone).fill(account.national);
  await p.password.fill("return-pass-1");
  await p.button(p.t.account.login.submit).click();
  await expect(page).toHaveURL(new RegExp(`/story/${first.id}$`));
  // Once: the next sign-in of this tab starts at home.
  await expect(page.locator("video").first()).toBeAttached();
});

test("an Arabic-first screen opens in Arabic unless its link asks for English, and keeps the link's choice", async ({
  page,
  request,
}) => {
  const user = await createUser(request);
  await signIn(page, user);
  await page.goto("/arabic-questions?lng=en");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/\w/);
  expect(await page.evaluate(() => localStorage.getItem("i18nextLng"))).toBe("en");
  await page.goto("/arabic-questions");
  await expect(page.locator("html")).toHaveAttribute("lang", "ar");
  await expect.poll(() => page.evaluate(() => localStorage.getItem("i18nextLng"))).toBe("ar");
});

test("a locked sign-in shows the server's wait counting down, then lets the person try again", async ({ page, lang }) => {
  const p = new AccountPages(page, lang);
  const errors = p.t.common.errors;
  await page.clock.install();
  // The server locks an account after repeated wrong passwords and says for how long (here 163 s).
  await page.route("**/auth/v1/token**", (route) =>
    route.fulfill({
      status: 429,
      headers: { "retry-after": "163", "content-type": "application/json" },
      body: JSON.stringify({ code: 429, error_code: "over_request_rate_limit", msg: "Too many attempts" }),
    }),
  );
  await page.goto("/login");
  await p.field(p.t.account.fields.usernameOrPhone).fill("someone");
  await p.password.fill("wrong-password");
  const submit = p.button(p.t.account.login.submit);
  await submit.click();
  const status = page.locator(".auth-form__wait");
  // Arabic words 3 with its "few" form and 53 with its "many" form; English has one plural.
  const text = errors as Record<string, string>;
  const wait = (key: string, count: number) => text[key]?.replace("{{count}}", String(count)) ?? key;
  await expect(status).toHaveText(wait(lang === "ar" ? "waitMinutes_few" : "waitMinutes_other", 3));
  await expect(submit).toBeDisabled();
  await page.clock.fastForward(110_000);
  await expect(status).toHaveText(wait(lang === "ar" ? "waitSeconds_many" : "waitSeconds_other", 53));
  await page.clock.fastForward(60_000);
  await expect(submit).toBeEnabled();
  await expect(status).toBeEmpty();
});
