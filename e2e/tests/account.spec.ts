import {
  AccountPages,
  createPhoneAccount,
  dismissToasts,
  expectAccessible,
  jordanPhone,
  latestOtp,
  toJordanE164,
  unique,
} from "../pages/account.ts";
import { expect, test } from "../support/fixtures.ts";

// No region in the browser language and a neutral time zone: nothing pre-selects a country unless a
// test asks for it, so 'Select country' can be checked.
test.use({ locale: "en", timezoneId: "UTC" });

test.describe("register (English)", () => {
  test("states the username rule next to the field and checks it before sending", async ({ page, lang }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    await page.goto("/register");
    await expect(page.getByText(t.register.usernameRule)).toBeVisible();
    await p.register("no spaces allowed", "secret-123");
    await p.expectFieldError(t.validation.usernameRule);
    // The error goes as soon as the field is edited.
    await p.username.fill("fixed.name");
    await expect(page.locator(".field__error", { hasText: t.validation.usernameRule })).toHaveCount(0);
  });

  test("validates, signs up, creates the user and lands on the stories", async ({ page, lang, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    await page.goto("/register?fromLandingPage=1");
    await p.expectRtl();
    await expect(page.getByRole("heading", { name: t.register.heading })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: t.register.reminders })).toBeChecked();
    const terms = page.getByRole("link", { name: t.links.terms });
    await expect(terms).toHaveAttribute("target", "_blank");
    await expect(terms).toHaveAttribute("href", "/termandcondtion");
    await expect(page.getByRole("link", { name: t.links.privacy })).toHaveAttribute("target", "_blank");
    await expect(page.getByRole("link", { name: t.register.login })).toHaveAttribute("href", "/login");
    // The country flag is an SVG from the server, not an emoji.
    await shot("register");
    await expectAccessible(page, "register");

    await p.button(t.register.submit).click();
    await p.expectToast(t.validation.selectCountry);
    await p.country.expectInvalid();
    await p.expectFieldError(t.validation.usernameRequired);
    await p.expectFieldError(t.validation.passwordRequired);
    await shot("register-errors");
    await expectAccessible(page, "register with errors");

    // Password show/hide.
    await p.password.fill("secret-1");
    await expect(p.password).toHaveAttribute("type", "password");
    await page.getByRole("button", { name: p.t.common.password.show }).click();
    await expect(p.password).toHaveAttribute("type", "text");
    await page.getByRole("button", { name: p.t.common.password.hide }).click();

    const username = unique("reg");
    let createUserBody: Record<string, unknown> | undefined;
    page.on("request", (r) => {
      if (r.url().endsWith("/api/users") && r.method() === "POST") createUserBody = r.postDataJSON();
    });
    await dismissToasts(page);
    await p.register(username, "secret-123");
    await p.expectToast(t.register.success);
    await expect(page).toHaveURL(/\/$/);
    expect(createUserBody).toMatchObject({ countryCode: "JO", name: username, fromLandingPage: true });
    const stored = await page.evaluate(() => ({ token: localStorage.getItem("token"), userId: localStorage.getItem("userId") }));
    expect(stored.token).toBeTruthy();
    expect(stored.userId).toBe(createUserBody?.id);
  });

  test("shows the server's 'already registered' in the person's language and keeps the form", async ({ page, lang, request }) => {
    const p = new AccountPages(page, lang);
    const username = unique("dup");
    const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string; usernameEmailDomain: string };
    const res = await request.post("/auth/v1/signup", {
      headers: { apikey: settings.anonKey },
      data: { email: `${username}@${settings.usernameEmailDomain}`, password: "secret-123" },
    });
    expect(res.status(), await res.text()).toBe(200);

    await page.goto("/register");
    await p.register(username, "secret-123");
    await p.expectToast(p.t.common.errors.user_already_exists);
    await expect(page).toHaveURL(/\/register$/);
    await expect(p.username).toHaveValue(username);
    await expect(p.password).toHaveValue("secret-123");

    await dismissToasts(page);
    await p.username.fill(unique("weak"));
    await p.password.fill("123");
    await p.button(p.t.account.register.submit).click();
    await p.expectToast(p.t.common.errors.weak_password);
  });
});

test.describe("country dropdown", () => {
  test("pins Jordan, Palestine and Israel (and the US in English), searches in both languages, works by keyboard", async ({
    page,
    lang,
    shot,
  }) => {
    const p = new AccountPages(page, lang);
    await page.goto("/register");
    await p.country.trigger.focus();
    await page.keyboard.press("ArrowDown");
    const list = page.getByRole("listbox");
    await expect(list).toBeVisible();
    const box = await list.boundingBox();
    expect(box?.height).toBeLessThanOrEqual(341);
    expect(box?.height).toBeGreaterThan(300);
    const options = page.getByRole("option");
    const first = await options.evaluateAll((els) => els.slice(0, 4).map((e) => e.textContent ?? ""));
    if (lang === "en") {
      expect(first[0]).toContain("Jordan");
      expect(first[1]).toContain("Palestine");
      expect(first[2]).toContain("Israel");
      expect(first[3]).toContain("United States");
    } else {
      expect(first[0]).toContain("الأردن");
      expect(first[1]).toContain("فلسطين");
      expect(first[2]).toContain("إسرائيل");
      expect(first[3]).not.toContain("الولايات المتحدة");
    }
    expect(await options.count()).toBeGreaterThan(190);
    // Flags are SVG images served by the app.
    const flag = options.first().locator("img");
    await expect(flag).toHaveAttribute("src", "/api/flags/JO.svg");
    await expect.poll(() => flag.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await shot("country-dropdown");
    await expectAccessible(page, "country dropdown");

    const search = page.getByRole("combobox");
    await search.fill(lang === "ar" ? "فلس" : "pales");
    await expect(options).toHaveCount(1);
    await search.press("Enter");
    await expect(list).toBeHidden();
    await expect(p.country.trigger).toContainText(lang === "ar" ? "فلسطين" : "Palestine");
    await expect(p.country.trigger).toContainText("+970");
    await expect(p.country.trigger).toBeFocused();

    // Arrow keys move the active option; Escape closes without choosing.
    await page.keyboard.press("ArrowDown");
    await page.getByRole("combobox").press("ArrowDown");
    await expect(page.getByRole("combobox")).toHaveAttribute("aria-activedescendant", /option-\d+/);
    await page.getByRole("combobox").press("Escape");
    await expect(list).toBeHidden();
    await expect(p.country.trigger).toContainText("+970");
  });

  test("is pre-selected from the CDN's country header without blocking the form", async ({ browser, lang, baseURL }) => {
    const context = await browser.newContext({ baseURL, extraHTTPHeaders: { "cf-ipcountry": "PS" }, locale: "en" });
    await context.addInitScript((l) => localStorage.setItem("i18nextLng", l), lang);
    const page = await context.newPage();
    const p = new AccountPages(page, lang);
    await page.goto("/login");
    await expect(p.country.trigger).toContainText(lang === "ar" ? "فلسطين" : "Palestine");
    await context.close();
  });

  test("falls back to the browser's time zone", async ({ browser, lang, baseURL }) => {
    const context = await browser.newContext({ baseURL, timezoneId: "Asia/Amman", locale: "en" });
    await context.addInitScript((l) => localStorage.setItem("i18nextLng", l), lang);
    const page = await context.newPage();
    const p = new AccountPages(page, lang);
    await page.goto("/forgot-password");
    await expect(p.country.trigger).toContainText(lang === "ar" ? "الأردن" : "Jordan");
    await expect(page.getByText("+962 7 9012 3456")).toBeVisible();
    await context.close();
  });
});

test.describe("login", () => {
  test("by username: validation, wrong password, network failure, 429, then welcome", async ({ page, lang, request, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    const username = unique("log");
    const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string; usernameEmailDomain: string };
    await request.post("/auth/v1/signup", {
      headers: { apikey: settings.anonKey },
      data: { email: `${username}@${settings.usernameEmailDomain}`, password: "secret-123" },
    });

    await page.goto("/login");
    await p.expectRtl();
    await expect(page.getByRole("link", { name: t.login.forgot })).toHaveAttribute("href", "/forgot-password");
    await expect(page.getByRole("link", { name: t.login.register })).toHaveAttribute("href", "/register");
    await expect(page.getByRole("checkbox", { name: t.login.remember })).toBeChecked();
    await shot("login");
    await expectAccessible(page, "login");

    await p.button(t.login.submit).click();
    await p.expectToast(t.validation.usernameRequired);
    await p.expectFieldError(t.validation.passwordRequired);
    await shot("login-errors");

    const userField = p.field(t.fields.usernameOrPhone);
    await userField.fill(username);
    await p.password.fill("wrong-password");
    await dismissToasts(page);
    await p.button(t.login.submit).click();
    await p.expectToast(p.t.common.errors.invalid_credentials);
    await expect(userField).toHaveValue(username);
    await expect(p.password).toHaveValue("wrong-password");

    // Offline: a clear toast, nothing lost.
    await dismissToasts(page);
    await page.route("**/auth/v1/token**", (route) => route.abort("internetdisconnected"));
    await p.button(t.login.submit).click();
    await p.expectToast(p.t.common.errors.network);
    await expect(userField).toHaveValue(username);
    await page.unroute("**/auth/v1/token**");

    // Too many attempts (429).
    await dismissToasts(page);
    await page.route("**/auth/v1/token**", (route) =>
      route.fulfill({
        status: 429,
        contentType: "application/json",
        body: JSON.stringify({ code: 429, error_code: "over_request_rate_limit", msg: "Request rate limit reached" }),
      }),
    );
    await p.button(t.login.submit).click();
    await p.expectToast(p.t.common.errors.rate_limited);
    await expect(p.password).toHaveValue("wrong-password");
    await page.unroute("**/auth/v1/token**");

    await dismissToasts(page);
    await page.getByRole("checkbox", { name: t.login.remember }).uncheck();
    await p.password.fill("secret-123");
    await p.button(t.login.submit).click();
    await p.expectToast(t.login.welcome);
    await expect(page).toHaveURL(/\/$/);
    // Without Remember Me the session ends with the browser: sessionStorage only.
    const where = await page.evaluate(() => ({
      local: localStorage.getItem("token"),
      session: sessionStorage.getItem("token"),
    }));
    expect(where.local).toBeNull();
    expect(where.session).toBeTruthy();
  });

  test("by phone number, read with the selected country's dial code", async ({ page, lang, request }) => {
    const p = new AccountPages(page, lang);
    const account = await createPhoneAccount(request, "phone-pass-1");
    await page.goto("/login");
    await p.country.choose(lang === "ar" ? "الأردن" : "Jordan", lang === "ar" ? "الأردن" : "Jordan");
    await p.field(p.t.account.fields.usernameOrPhone).fill(account.national);
    await p.password.fill("phone-pass-1");
    await p.button(p.t.account.login.submit).click();
    await p.expectToast(p.t.account.login.welcome);
    await expect(page).toHaveURL(/\/$/);
    expect(await page.evaluate(() => localStorage.getItem("userId"))).toBe(account.userId);
  });
});

test.describe("arabic register", () => {
  test("phone sign-up stores the token and plays the landing video", async ({ page, lang, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    // It opens in Arabic unless the address asks for a language.
    await page.goto(lang === "ar" ? "/arabic-register" : "/arabic-register?lng=en");
    await p.expectRtl();
    await shot("arabic-register");
    await expectAccessible(page, "arabic-register");

    await p.button(t.register.submit).click();
    await p.expectToast(t.validation.selectCountry);
    await p.country.expectInvalid();
    await p.expectFieldError(t.validation.phoneRequired);
    await p.expectFieldError(t.validation.passwordRequired);
    await shot("arabic-register-errors");

    await p.country.choose("962", lang === "ar" ? "الأردن" : "Jordan");
    const national = jordanPhone();
    await p.phone.fill(national);
    await p.password.fill("phone-pass-1");
    await dismissToasts(page);
    await p.button(t.register.submit).click();
    await expect(page).toHaveURL(/\/landing-page$/);
    expect(await page.evaluate(() => localStorage.getItem("token"))).toBeTruthy();
  });

  test("takes Arabic-Indic digits, and the same digits log in", async ({ page, lang }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    const arabic = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
    const national = jordanPhone();
    await page.goto(lang === "ar" ? "/arabic-register" : "/arabic-register?lng=en");
    await p.country.choose("962", lang === "ar" ? "الأردن" : "Jordan");
    await p.phone.fill(arabic(national));
    await p.password.fill("digits-pass-1");
    await dismissToasts(page);
    await p.button(t.register.submit).click();
    await expect(page).toHaveURL(/\/landing-page$/);

    await page.evaluate(() => localStorage.clear());
    await page.goto("/login");
    await p.country.choose(lang === "ar" ? "الأردن" : "Jordan", lang === "ar" ? "الأردن" : "Jordan");
    await p.field(t.fields.usernameOrPhone).fill(arabic(national));
    await p.password.fill("digits-pass-1");
    await p.button(t.login.submit).click();
    await p.expectToast(t.login.welcome);
    await expect(page).toHaveURL(/\/$/);
  });

  test("opens in Arabic from an English browser", async ({ page }) => {
    await page.goto("/arabic-register");
    await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
  });
});

test.describe("signed-in account screens", () => {
  test("change password and edit profile", async ({ page, lang, request, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    const account = await createPhoneAccount(request, "change-pass-1");
    await page.addInitScript(
      ({ token, userId }) => {
        localStorage.setItem("token", token);
        localStorage.setItem("userId", userId);
      },
      { token: account.token, userId: account.userId },
    );

    await page.goto("/change-password");
    await p.expectRtl();
    await shot("change-password");
    await expectAccessible(page, "change-password");
    await p.button(t.change.submit).click();
    await p.expectToast(t.validation.passwordRequired);
    await p.expectFieldError(t.validation.newPasswordRequired);
    await p.field(t.fields.currentPassword).fill("not-my-password");
    await p.field(t.fields.newPassword).fill("change-pass-2");
    await dismissToasts(page);
    await p.button(t.change.submit).click();
    // Not "Invalid login credentials": the field says what is wrong, and clears when it is edited.
    await p.expectFieldError(p.t.common.errors.incorrect_password);
    await expect(p.field(t.fields.currentPassword)).toHaveValue("not-my-password");
    await p.field(t.fields.currentPassword).fill("change-pass-1");
    await dismissToasts(page);
    await p.button(t.change.submit).click();
    await p.expectToast(t.change.success);

    await page.goto("/edit-profile");
    await expect(p.country.trigger).toContainText(lang === "ar" ? "الأردن" : "Jordan");
    await shot("edit-profile");
    await expectAccessible(page, "edit-profile");
    await dismissToasts(page);
    await p.button(t.edit.submit).click();
    await p.expectToast(t.edit.nothing);
    await p.field(t.fields.newPassword).fill("change-pass-3");
    await dismissToasts(page);
    await p.button(t.edit.submit).click();
    await p.expectToast(t.validation.currentPasswordRequired);
    await p.field(t.fields.newPassword).fill("");

    // A new phone number (typed with Arabic-Indic digits) changes nothing until its code is verified.
    const newPhone = jordanPhone();
    const arabicDigits = newPhone.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
    await page.getByLabel(new RegExp(`^${t.fields.phone}`)).fill(arabicDigits);
    await page.getByRole("radio", { name: t.phoneChange.channels.whatsapp }).check();
    await dismissToasts(page);
    await p.button(t.edit.submit).click();
    await p.expectToast(t.edit.phonePending);
    await expect(page.getByText(toJordanE164(newPhone))).toBeVisible();
    await shot("edit-profile-pending-phone");
    const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
    const signInWith = (phone: string) =>
      request.post("/auth/v1/token?grant_type=password", {
        headers: { apikey: settings.anonKey },
        data: { phone, password: "change-pass-2" },
      });
    expect((await signInWith(account.e164)).status()).toBe(200);
    expect((await signInWith(toJordanE164(newPhone))).status()).toBe(400);
    const code = await latestOtp(request, toJordanE164(newPhone));
    await p.field(t.phoneChange.code).fill(code);
    await dismissToasts(page);
    await p.button(t.phoneChange.confirm).click();
    await p.expectToast(t.phoneChange.done);
    expect((await signInWith(toJordanE164(newPhone))).status()).toBe(200);
    expect((await signInWith(account.e164)).status()).toBe(400);

    // The reminders answer is stored on the server.
    const auth = { authorization: `Bearer ${account.token}` };
    await page.getByRole("checkbox", { name: t.register.reminders }).uncheck();
    await expect
      .poll(
        async () =>
          ((await (await request.get("/api/account", { headers: auth })).json()) as { agreeToReminder: boolean }).agreeToReminder,
      )
      .toBe(false);

    // Delete the account: a wrong password deletes nothing; the right one signs the device out.
    await page.getByRole("button", { name: t.delete.open }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText(t.delete.confirm);
    await shot("edit-profile-delete");
    await dialog.getByLabel(t.fields.password, { exact: true }).fill("wrong-password");
    await dialog.getByRole("button", { name: t.delete.submit }).click();
    await expect(dialog.locator(".field__error")).toHaveText(p.t.common.errors.incorrect_password);
    expect((await request.get("/api/account", { headers: auth })).status()).toBe(200);
    await dialog.getByLabel(t.fields.password, { exact: true }).fill("change-pass-2");
    await dialog.getByRole("button", { name: t.delete.submit }).click();
    await expect(page).toHaveURL(/\/login$/);
    await p.expectToast(t.delete.done);
    expect((await request.get("/api/account", { headers: auth })).status()).toBe(401);
  });

  test("signed-out visitors are sent to /login with 'Please log in.'", async ({ page, lang }) => {
    const p = new AccountPages(page, lang);
    await page.goto("/change-password");
    await expect(page).toHaveURL(/\/login$/);
    await p.expectToast(p.t.stories.menu.pleaseLogIn);
  });
});
