import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Locator, type Page } from "@playwright/test";
import arAccount from "../../apps/web/src/locales/ar/account.json" with { type: "json" };
import arCharacters from "../../apps/web/src/locales/ar/characters.json" with { type: "json" };
import arCommon from "../../apps/web/src/locales/ar/common.json" with { type: "json" };
import arInfo from "../../apps/web/src/locales/ar/info.json" with { type: "json" };
import arStories from "../../apps/web/src/locales/ar/stories.json" with { type: "json" };
import enAccount from "../../apps/web/src/locales/en/account.json" with { type: "json" };
import enCharacters from "../../apps/web/src/locales/en/characters.json" with { type: "json" };
import enCommon from "../../apps/web/src/locales/en/common.json" with { type: "json" };
import enInfo from "../../apps/web/src/locales/en/info.json" with { type: "json" };
import enStories from "../../apps/web/src/locales/en/stories.json" with { type: "json" };
import type { Lang } from "../support/fixtures.ts";
import { E2E_ADMIN } from "../support/global-setup.ts";

export const TEXT = {
  en: { account: enAccount, common: enCommon, info: enInfo, characters: enCharacters, stories: enStories },
  ar: { account: arAccount, common: arCommon, info: arInfo, characters: arCharacters, stories: arStories },
} as const;
export type Text = (typeof TEXT)["en"];

/** A unique name per test run and language, so runs never collide on the same server. */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** A valid Jordanian mobile number, national format, unique enough for one run. */
export const jordanPhone = () => `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
export const toJordanE164 = (national: string) => `+962${national.replace(/^0/, "")}`;

/** The toast area (lib/toast.tsx): every message a person reads after an action. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator(".toast").filter({ hasText: text });
}

export async function dismissToasts(page: Page) {
  await page.evaluate(() => {
    document.querySelectorAll<HTMLElement>(".toast__close").forEach((el) => {
      el.click();
    });
  });
  await expect(page.locator(".toast")).toHaveCount(0, { timeout: 5000 });
}

/** axe-core on the current screen: no serious or critical violation. */
export async function expectAccessible(page: Page, label: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    `${label}: axe violations`,
  ).toEqual([]);
}

/** The searchable country dropdown (components/country-select.tsx), driven by keyboard like a person would. */
export class CountryDropdown {
  readonly trigger: Locator;
  readonly page: Page;
  constructor(page: Page, label: string) {
    this.page = page;
    this.trigger = page.getByRole("button", { name: new RegExp(`^${label}`) });
  }

  async choose(search: string, expected: string) {
    // Prerendered screens show this button before React has taken it over, and a tap before then does nothing:
    // wait until React has attached its handlers to this very element.
    await expect
      .poll(() => this.trigger.evaluate((el) => Object.keys(el).some((key) => key.startsWith("__reactProps"))))
      .toBe(true);
    await this.trigger.click();
    const box = this.page.getByRole("combobox");
    await expect(box).toBeFocused();
    await box.fill(search);
    await expect(this.page.getByRole("option").first()).toContainText(expected);
    await box.press("Enter");
    await expect(this.trigger).toContainText(expected);
  }

  async expectInvalid() {
    await expect(this.trigger).toHaveAttribute("aria-invalid", "true");
  }
}

export class AccountPages {
  readonly t: Text;
  readonly country: CountryDropdown;
  readonly page: Page;
  readonly lang: Lang;

  constructor(page: Page, lang: Lang) {
    this.page = page;
    this.lang = lang;
    this.t = TEXT[lang];
    this.country = new CountryDropdown(page, this.t.account.fields.country);
  }

  field(label: string): Locator {
    return this.page.getByLabel(label, { exact: true });
  }

  get username() {
    return this.field(this.t.account.fields.username);
  }
  get password() {
    return this.field(this.t.account.fields.password);
  }
  get phone() {
    return this.field(this.t.account.fields.phone);
  }

  button(name: string): Locator {
    return this.page.getByRole("button", { name, exact: true });
  }

  async expectToast(text: string | RegExp) {
    await expect(toast(this.page, text).first()).toBeVisible();
  }

  async expectFieldError(text: string) {
    await expect(this.page.locator(".field__error", { hasText: text }).first()).toBeVisible();
  }

  async expectRtl() {
    await expect(this.page.locator("html")).toHaveAttribute("dir", this.lang === "ar" ? "rtl" : "ltr");
    await expect(this.page.locator("html")).toHaveAttribute("lang", this.lang);
  }

  /** Fills the English register form and submits it. */
  async register(username: string, password: string, countrySearch = "Jordan") {
    await this.country.choose(countrySearch, this.lang === "ar" ? "الأردن" : "Jordan");
    await this.username.fill(username);
    await this.password.fill(password);
    await this.button(this.t.account.register.submit).click();
  }
}

/** An admin's access token, as supabase-js would get it: POST /auth/v1/token with the anon key. */
export async function adminToken(request: APIRequestContext): Promise<string> {
  const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const res = await request.post("/auth/v1/token?grant_type=password", {
    headers: { apikey: settings.anonKey },
    data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password },
  });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A password sign-in through /auth/v1/token with the anon key (the answer, for its status and session). */
export async function passwordSignIn(
  request: APIRequestContext,
  identity: { phone: string } | { email: string },
  password: string,
) {
  const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  return request.post("/auth/v1/token?grant_type=password", {
    headers: { apikey: settings.anonKey },
    data: { ...identity, password },
  });
}

/** The newest code texted to a phone number, read from the SMS outbox (admin API). */
export async function latestOtp(request: APIRequestContext, e164: string, after?: string): Promise<string> {
  const token = await adminToken(request);
  let code: string | undefined;
  await expect
    .poll(async () => {
      const res = await request.get(`/api/admin/sms-outbox?recipient=${encodeURIComponent(e164)}&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status()).toBe(200);
      const { messages } = (await res.json()) as { messages: { body: string; createdAt?: string }[] };
      const found = messages.map((m) => /(\d{6})/.exec(m.body)?.[1]).find((c) => c && c !== after);
      code = found;
      return Boolean(found);
    })
    .toBe(true);
  return code ?? "";
}

/** A phone-number account made through the API (as /arabic-register does), for flows that start signed out. */
export async function createPhoneAccount(request: APIRequestContext, password: string) {
  const national = jordanPhone();
  const res = await request.post("/api/sign-up", {
    data: { country: "JO", phoneNumber: national, password, agreeToReminder: true },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; user: { id: string } };
  return { national, e164: toJordanE164(national), token: body.token, userId: body.user.id };
}
