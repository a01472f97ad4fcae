import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { adminToken, Console } from "../pages/admin.ts";
import { expect, test } from "../support/fixtures.ts";

const AUDIO = readFileSync(join(resolve(import.meta.dirname, "..", "..", "apps/server/demo/files"), "audio/landing-aunt.m4a"));
const LAPTOP = { width: 1280, height: 860 };

interface AdminCharacter {
  id: string;
  nameEn: string;
  nameAr: string;
  thumbnail: string | null;
  audio: string | null;
  version: number;
}
interface AdminLandingAnswer {
  id: string;
  characterNameEn: string;
}

test.describe.configure({ mode: "serial" });

/** The console's API as another operator (or another tab) would use it. */
async function api(request: APIRequestContext) {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  return {
    async character(nameEn: string): Promise<AdminCharacter> {
      const res = await request.post("/api/admin/characters", { headers, data: { nameEn, nameAr: `${nameEn} عربي` } });
      expect(res.status(), await res.text()).toBe(200);
      return ((await res.json()) as AdminCharacter[]).find((c) => c.nameEn === nameEn) as AdminCharacter;
    },
    async rename(c: AdminCharacter, nameEn: string) {
      const res = await request.put(`/api/admin/characters/${c.id}`, {
        headers,
        data: { nameEn, nameAr: c.nameAr, thumbnail: c.thumbnail, audio: c.audio, version: c.version },
      });
      expect(res.status(), await res.text()).toBe(200);
    },
    async landingAnswer(characterId: string): Promise<AdminLandingAnswer[]> {
      const upload = await request.post("/api/admin/uploads/audio", {
        headers,
        multipart: { file: { name: "a.m4a", mimeType: "audio/mp4", buffer: AUDIO } },
      });
      expect(upload.status(), await upload.text()).toBe(200);
      const { path } = (await upload.json()) as { path: string };
      const res = await request.post("/api/admin/landing-answers", { headers, data: { characterId, audio: path } });
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()) as AdminLandingAnswer[];
    },
    /** Leaves the shared server as the other suites expect it: no landing answers or family members of ours. */
    async cleanUp(prefix: string) {
      const answers = (await (await request.get("/api/admin/landing-answers", { headers })).json()) as AdminLandingAnswer[];
      for (const a of answers.filter((a) => a.characterNameEn.startsWith(prefix)))
        await request.delete(`/api/admin/landing-answers/${a.id}`, { headers });
      const characters = (await (await request.get("/api/admin/characters", { headers })).json()) as AdminCharacter[];
      for (const c of characters.filter((c) => c.nameEn.startsWith(prefix)))
        await request.delete(`/api/admin/characters/${c.id}`, { headers });
    },
  };
}

const PREFIX = "Lists ";
const unique = () => Math.random().toString(36).slice(2, 8);

test.afterAll(async ({ playwright }) => {
  const request = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
  await (await api(request)).cleanUp(PREFIX);
  await request.dispose();
});

test("a family member saved meanwhile by someone else: the stale save is refused and the stored values shown", async ({
  page,
  lang,
  request,
  shot,
}) => {
  await page.setViewportSize(LAPTOP);
  const server = await api(request);
  const member = await server.character(`${PREFIX}Huda ${unique()}`);
  const c = new Console(page, lang);
  await c.signIn();
  await c.submitSignIn();
  await c.go(c.s.nav.characters, c.s.characters.title);
  await page.getByRole("button", { name: `${c.s.common.edit}: ${member.nameEn}` }).click();
  const form = page.getByRole("form", { name: c.s.characters.editTitle });
  await expect(form.getByLabel(c.s.characters.nameEn)).toHaveValue(member.nameEn);

  // Another operator saves first, from the same version.
  const theirs = `${member.nameEn} (theirs)`;
  await server.rename(member, theirs);

  await form.getByLabel(c.s.characters.nameEn).fill(`${member.nameEn} (mine)`);
  await form.getByRole("button", { name: c.s.common.save }).click();
  const notice = page.getByTestId("stale-notice");
  await expect(notice.getByRole("heading", { name: c.s.conflict.title })).toBeVisible();
  await expect(notice.getByRole("definition").first()).toHaveText(theirs);
  await shot("console-character-stale");
  await notice.getByRole("button", { name: c.s.conflict.reload }).click();
  await expect(page.getByRole("form", { name: c.s.characters.editTitle }).getByLabel(c.s.characters.nameEn)).toHaveValue(theirs);
  await expect(notice).toHaveCount(0);
});

test("the audit log reads as sentences in the operator's language and finds an entry by search", async ({
  page,
  lang,
  request,
  shot,
}) => {
  await page.setViewportSize(LAPTOP);
  const server = await api(request);
  const token = unique();
  const member = await server.character(`${PREFIX}Sami ${token}`);
  const renamed = `${PREFIX}Samir ${token}`;
  await server.rename(member, renamed);

  const c = new Console(page, lang);
  await c.signIn();
  await c.submitSignIn();
  await c.go(c.s.nav.audit, c.s.audit.title);
  await page.getByRole("searchbox", { name: c.s.audit.search }).fill(token);
  const sentences = page.getByTestId("audit-sentence");
  await expect(sentences).toHaveCount(2);
  // "{{who}} changed the English name of the family member “Samir …”", with the operator's name or e-mail for {{who}}.
  const [, rest] = c.s.audit.sentences["character.update"].split("{{who}}");
  const expected = (rest ?? "")
    .replace("{{fields}}", c.s.audit.fields.nameEn)
    .replace("{{target}}", lang === "ar" ? `${member.nameAr}` : renamed);
  await expect(sentences.first()).toContainText(expected);
  await expect(sentences.first()).not.toContainText("{");
  await expect(sentences.nth(1)).toContainText(
    (c.s.audit.sentences["character.create"].split("{{who}}")[1] ?? "").replace(
      "{{target}}",
      lang === "ar" ? member.nameAr : renamed,
    ),
  );

  await shot("console-audit-search");
  // On a phone the sentences wrap; nothing widens the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(sentences).toHaveCount(2);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot("console-audit-search-phone");

  await page.getByRole("searchbox", { name: c.s.audit.search }).fill(`${token}-nothing`);
  await expect(page.getByText(c.s.audit.none)).toBeVisible();
});

test("landing answers: moved up with the arrows, kept after a reload; deleting asks first", async ({
  page,
  lang,
  request,
  shot,
}) => {
  await page.setViewportSize(LAPTOP);
  const server = await api(request);
  const token = unique();
  const first = await server.character(`${PREFIX}First ${token}`);
  const second = await server.character(`${PREFIX}Second ${token}`);
  await server.landingAnswer(first.id);
  await server.landingAnswer(second.id);

  const c = new Console(page, lang);
  await c.signIn();
  await c.submitSignIn();
  await c.go(c.s.nav.media, c.s.media.title);
  const name = (m: AdminCharacter) => (lang === "ar" ? m.nameAr : m.nameEn);
  const mine = page.getByTestId("landing-answer").filter({ hasText: token });
  await expect(mine).toHaveCount(2);
  await expect(mine.nth(0)).toContainText(name(first));
  const secondRow = mine.filter({ hasText: name(second) });
  const order = (await secondRow.locator(".admin-order").textContent()) ?? "";
  const label = c.s.media.landingName.replace("{{order}}", order).replace("{{name}}", name(second));
  await secondRow.getByRole("button", { name: c.s.common.moveUp.replace("{{name}}", label) }).click();
  await expect(c.toast(c.s.media.landingReordered)).toBeVisible();
  await expect(mine.nth(0)).toContainText(name(second));

  await page.reload();
  await expect(page.getByTestId("landing-answer").filter({ hasText: token }).nth(0)).toContainText(name(second));
  await shot("console-landing-answers");

  // Delete asks first; cancelling keeps the answer.
  const row = page.getByTestId("landing-answer").filter({ hasText: name(first) });
  await row.getByRole("button", { name: new RegExp(`^${c.s.common.delete}: `) }).click();
  const dialog = page.getByRole("dialog", { name: c.s.media.landingDeleteTitle.replace("{{order}}", order) });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: c.s.common.cancel }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("landing-answer").filter({ hasText: token })).toHaveCount(2);
});
