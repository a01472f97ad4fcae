import { INBOX_STRINGS, invitedFacilitator, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";
import { seedInbox } from "../support/seed-inbox.ts";

const CONVERSATIONS = 10_000;
const PAGE = 30;

test("among 10,000 conversations a facilitator finds one by phone in local and international form, and reaches an older unread one", async ({
  page,
  lang,
  request,
  shot,
}) => {
  test.setTimeout(120_000);
  const s = INBOX_STRINGS[lang];
  const label = lang === "ar" ? "عائلة" : "Family";
  const seeded = seedInbox({
    count: CONVERSATIONS,
    // 078…: the people other specs sign up get random 079… numbers (pages/account.ts jordanPhone), which could
    // land among these 10,000 and fail the seed's unique phone.
    prefix: lang === "ar" ? "+9627820" : "+9627810",
    label: `${label}-${lang}`,
    olderUnreadPlace: 4 * PAGE + 5,
  });
  const staff = await invitedFacilitator(request, `e2e-inbox-${lang}-${Date.now().toString(36)}@hikaya.test`);
  await storeSession(page, staff, lang, "console");
  await page.goto("/admin/inbox");
  await expect(page.getByRole("heading", { level: 1, name: s.title })).toBeVisible();

  const list = page.locator(".inbox__items");
  const items = list.getByRole("listitem");
  const search = page.getByRole("searchbox", { name: s.search });
  await expect(items).toHaveCount(PAGE);
  // The search box and the four filters fit a phone in both languages.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot("inbox-scale-first-page");

  // The oldest conversation of all, by its number in the local form (trunk 0, spaces), then the international one.
  const national = seeded.byPhone.phone.slice(4); // "+962" 781000000
  const local = `0${national.slice(0, 2)} ${national.slice(2, 5)} ${national.slice(5)}`;
  await search.fill(local);
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText(seeded.byPhone.name);
  // Shown grouped as libphonenumber-js's international format writes it, its digits left to right in Arabic too.
  const grouped = `+962 ${national.slice(0, 1)} ${national.slice(1, 5)} ${national.slice(5)}`;
  const shownPhone = items.first().locator('bdi[dir="ltr"]');
  await expect(shownPhone).toHaveText(grouped);
  expect(await shownPhone.evaluate((el) => getComputedStyle(el).direction)).toBe("ltr");
  await expect(page).toHaveURL(/q=0/);
  await shot("inbox-scale-search-local");

  await search.fill("");
  await expect(items).toHaveCount(PAGE);
  await search.fill(`+962 ${national.slice(0, 2)} ${national.slice(2, 5)} ${national.slice(5)}`);
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText(seeded.byPhone.name);
  await items.first().getByRole("link").click();
  await expect(page.getByRole("heading", { level: 2, name: seeded.byPhone.name })).toBeVisible();
  await expect(page.locator(".inbox-conversation__chat").getByText(seeded.byPhone.message)).toBeVisible();
  await expect(page.getByRole("complementary", { name: s.profile }).locator('bdi[dir="ltr"]')).toHaveText(grouped);
  // Back to the list keeps the search.
  await page.getByRole("link", { name: s.back }).click();
  await expect(items).toHaveCount(1);
  await expect(search).toHaveValue(/^\+962 /);

  // The older unread conversation is not on the first page; "Load older" reaches it.
  await search.fill("");
  await expect(items).toHaveCount(PAGE);
  const older = list.getByRole("link", { name: new RegExp(seeded.olderUnread.name) });
  await expect(older).toHaveCount(0);
  const loadOlder = page.getByRole("button", { name: s.loadOlder });
  for (let pages = 1; pages <= 5 && (await older.count()) === 0; pages++) {
    await loadOlder.click();
    await expect(items).toHaveCount(PAGE * (pages + 1));
  }
  await expect(older).toBeVisible();
  await expect(older).toContainText(s.unread_one.replace("{{count}}", "1"));
  await shot("inbox-scale-older-unread");

  // The Unread filter puts it near the top; the facilitator takes it and finds it under Mine.
  await page.getByRole("tab", { name: s.filters.unread }).click();
  await expect(page).toHaveURL(/filter=unread/);
  await expect(older).toBeVisible();
  await older.click();
  await expect(page.locator(".inbox-conversation__chat").getByText(seeded.olderUnread.message)).toBeVisible();
  await page.getByRole("button", { name: s.assignToMe }).click();
  await expect(page.locator(".inbox-conversation__assign")).toContainText(s.assignedToYou);
  await expect(page.getByRole("button", { name: s.unassign })).toBeVisible();
  await shot("inbox-scale-assigned");
  await page.getByRole("link", { name: s.back }).click();
  await page.getByRole("tab", { name: s.filters.mine }).click();
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText(seeded.olderUnread.name);
  await expect(items.first()).toContainText(s.assignedToYou);
  await shot("inbox-scale-mine");
  // Reading it cleared the unread mark: the Unread filter no longer lists it.
  await page.getByRole("tab", { name: s.filters.unread }).click();
  await expect(older).toHaveCount(0);
});
