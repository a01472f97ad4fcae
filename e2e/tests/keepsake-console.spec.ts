import type { AuditPage, Keepsake } from "@hikaya/contracts";
import arKeepsake from "../../apps/web/src/locales/ar/keepsake.json" with { type: "json" };
import enKeepsake from "../../apps/web/src/locales/en/keepsake.json" with { type: "json" };
import { adminToken, Console } from "../pages/admin.ts";
import { auth, familyWithThought } from "../pages/journey.ts";
import { expect, test } from "../support/fixtures.ts";

test("an admin opens a family's printable keepsake from the person's page, and the opening is audited", async ({
  page,
  request,
  lang,
  shot,
}) => {
  // A family with a name to search by, a recording and a titled book.
  const name = `Keepsake ${lang} ${Date.now().toString(36)}`;
  const { person, first } = await familyWithThought(request, name);
  const mine = (await (await request.get("/api/keepsake", { headers: auth(person) })).json()) as Keepsake;
  const voices = mine.stories.flatMap((s) => s.voices.filter((v) => v.included).map((v) => ({ kind: v.kind, id: v.id })));
  expect(voices).toHaveLength(1);
  const title = lang === "ar" ? "حكايات بيتنا" : "The stories of our house";
  const saved = await request.put("/api/keepsake", { headers: auth(person), data: { title, dedication: "", voices } });
  expect(saved.status(), await saved.text()).toBe(200);

  // The admin goes from the person's page to the book.
  const c = new Console(page, lang);
  const s = c.s;
  await c.openPerson(person.userId, name);
  await page.getByRole("link", { name: s.keepsake.open }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/users/${person.userId}/keepsake$`));
  await expect(page.getByRole("heading", { level: 1, name: s.keepsake.title })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: first[lang === "ar" ? "titleB" : "title"] })).toBeVisible();
  await expect(page.getByRole("button", { name: s.keepsake.print })).toBeEnabled();
  // The family has not shared the book: the operator is told so, not asked to share it on the family's behalf.
  const book = { en: enKeepsake, ar: arKeepsake }[lang].book;
  const unshared = page.getByText(book.notSharedByFamily);
  await expect(unshared).toBeVisible();
  await expect(page.getByText(book.notShared)).toHaveCount(0);
  await shot("console-keepsake");

  // On paper only the book: the console's menu and buttons are left off.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: s.nav.label })).toBeHidden();
  await expect(page.getByRole("button", { name: s.keepsake.print })).toBeHidden();
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
  await expect(unshared).toBeHidden();
  await page.emulateMedia({ media: "screen" });

  // The audit log has the one opening, naming the admin's target: in the API and as a sentence on its page.
  const log = await request.get(`/api/admin/audit?action=person.keepsake.open&q=${encodeURIComponent(name)}`, {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
  });
  expect(log.status(), await log.text()).toBe(200);
  const entries = ((await log.json()) as AuditPage).entries;
  expect(entries.map((e) => [e.action, e.targetType, e.targetId])).toEqual([["person.keepsake.open", "user", person.userId]]);
  await c.go(s.nav.audit, s.audit.title);
  await page.getByRole("searchbox", { name: s.audit.search }).fill(name);
  const entry = c.auditEntry("person.keepsake.open");
  await expect(entry).toBeVisible();
  await expect(entry).toContainText(name);
});
