import { type APIRequestContext, expect, type Page } from "@playwright/test";
import arAdmin from "../../apps/web/src/locales/ar/admin.json" with { type: "json" };
import enAdmin from "../../apps/web/src/locales/en/admin.json" with { type: "json" };
import type { Lang } from "../support/fixtures.ts";
import { E2E_ADMIN } from "../support/global-setup.ts";

export const ADMIN_STRINGS = { en: enAdmin, ar: arAdmin } as const;
export type AdminStrings = typeof enAdmin;
export { E2E_ADMIN };

/** The operator's access token, straight from /auth/v1/token (for set-up and clean-up through the API). */
export async function adminToken(request: APIRequestContext): Promise<string> {
  const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const res = await request.post("/auth/v1/token?grant_type=password", {
    headers: { apikey: settings.anonKey },
    data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password },
  });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Page object for the console under /admin. */
export class Console {
  readonly page: Page;
  readonly lang: Lang;
  readonly s: AdminStrings;
  constructor(page: Page, lang: Lang) {
    this.page = page;
    this.lang = lang;
    this.s = ADMIN_STRINGS[lang] as AdminStrings;
  }

  async signIn() {
    await this.page.goto("/admin/login");
    await expect(this.page.getByRole("heading", { name: this.s.login.title })).toBeVisible();
    await this.page.getByLabel(this.s.login.email).fill(E2E_ADMIN.email);
    await this.page.getByLabel(this.s.login.password, { exact: true }).fill(E2E_ADMIN.password);
  }

  async submitSignIn() {
    await this.page.getByRole("button", { name: this.s.login.submit }).click();
    await expect(this.page).toHaveURL(/\/admin\/stories$/);
    await expect(this.page.getByRole("heading", { level: 1, name: this.s.stories.title })).toBeVisible();
  }

  /** Signs in as the e2e admin on a laptop-sized window and opens a person's page (its heading is their name). */
  async openPerson(userId: string, name: string) {
    await this.page.setViewportSize({ width: 1280, height: 860 });
    await this.signIn();
    await this.submitSignIn();
    await this.page.goto(`/admin/users/${userId}`);
    await expect(this.page.getByRole("heading", { level: 1, name })).toBeVisible();
  }

  nav(name: string) {
    return this.page.getByRole("navigation", { name: this.s.nav.label }).getByRole("link", { name, exact: true });
  }

  async go(name: string, heading: string) {
    const phone = (this.page.viewportSize()?.width ?? 1280) < 900;
    if (phone) await this.page.getByRole("button", { name: this.s.nav.openMenu }).click();
    await this.nav(name).click();
    await expect(this.page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  }

  /** Picks a file for the upload field with this label and waits until it is stored. */
  async upload(label: string, file: string) {
    await this.page.getByLabel(label, { exact: true }).setInputFiles(file);
    const name = file.split("/").pop() ?? file;
    await expect(
      this.page
        .getByRole("status")
        .filter({ hasText: this.s.upload.done.replace("{{name}}", name) })
        .first(),
    ).toBeVisible({
      timeout: 20_000,
    });
  }

  toast(text: string) {
    return this.page.locator(".toast").filter({ hasText: text });
  }

  storyRows() {
    return this.page.getByTestId("story-row");
  }

  /** An entry of the audit log: each reads as a sentence, found by its words after the operator's name and before the first name it quotes. */
  auditEntry(action: keyof AdminStrings["audit"]["sentences"]) {
    const words = (this.s.audit.sentences[action].split("{{who}}")[1] ?? "").split("{{")[0] ?? "";
    return this.page.getByTestId("audit-sentence").filter({ hasText: words.trim() }).first();
  }

  /** Waits until pictures and fonts have settled, so screenshots show the real page. */
  async settle() {
    await this.page.waitForLoadState("networkidle").catch(() => undefined);
    await this.page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
  }
}
