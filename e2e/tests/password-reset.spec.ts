import {
  AccountPages,
  createPhoneAccount,
  dismissToasts,
  expectAccessible,
  latestOtp,
  toast,
  toJordanE164,
} from "../pages/account.ts";
import { expect, test } from "../support/fixtures.ts";

// A forgotten password (spec section 6): the texted code, its limits, and a reset link that has expired.
// A neutral time zone and no region, as in account.spec.ts: nothing pre-selects a country unless a test does.
test.use({ locale: "en", timezoneId: "UTC" });

test.describe("forgot password", () => {
  test("the whole flow: send OTP, wrong code, re-send, verify, mismatch, reset, log in", async ({
    page,
    lang,
    request,
    shot,
  }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    const account = await createPhoneAccount(request, "old-pass-1");
    await page.clock.install();

    await page.goto("/forgot-password");
    await p.expectRtl();
    await shot("forgot-password");
    await expectAccessible(page, "forgot-password");
    await p.button(t.forgot.submit).click();
    await p.expectToast(t.validation.selectCountry);
    await p.country.expectInvalid();
    await p.expectFieldError(t.validation.phoneRequired);

    await p.country.choose("Jordan", lang === "ar" ? "الأردن" : "Jordan");
    await p.phone.fill(account.national);
    await dismissToasts(page);
    await p.button(t.forgot.submit).click();
    await expect(page).toHaveURL(new RegExp(`/send-otp/${account.userId}$`));
    await expect(page.getByText(t.verify.resendIn.replace("{{seconds}}", "60"))).toBeVisible();
    await shot("verify-otp");
    await expectAccessible(page, "verify-otp");

    const otpField = p.field(t.fields.otp);
    await dismissToasts(page);
    await p.button(t.verify.submit).click();
    await p.expectToast(t.validation.otpRequired);

    const first = await latestOtp(request, account.e164);
    const wrong = first === "000000" ? "111111" : "000000";
    await otpField.fill(wrong);
    await dismissToasts(page);
    await p.button(t.verify.submit).click();
    await expect(toast(page, /./).first()).toBeVisible();
    await expect(otpField).toHaveValue(wrong);
    await expect(page).toHaveURL(/\/send-otp\//);

    // Re-Send after the countdown.
    await page.clock.fastForward(61_000);
    await dismissToasts(page);
    await p.button(t.verify.resend).click();
    await p.expectToast(t.verify.resent);
    const second = await latestOtp(request, account.e164, first);

    await otpField.fill(second);
    await p.button(t.verify.submit).click();
    await expect(page).toHaveURL(/\/reset-password$/);
    await shot("reset-password");
    await expectAccessible(page, "reset-password");

    const newPassword = p.field(t.fields.newPassword);
    const confirm = p.field(t.fields.confirmPassword);
    await dismissToasts(page);
    await p.button(t.reset.submit).click();
    await p.expectToast(t.validation.passwordRequired);
    await p.expectFieldError(t.validation.confirmRequired);
    await newPassword.fill("new-pass-1");
    await confirm.fill("new-pass-2");
    await dismissToasts(page);
    await p.button(t.reset.submit).click();
    await p.expectToast(t.validation.mismatch);
    await shot("reset-password-errors");
    await confirm.fill("new-pass-1");
    await dismissToasts(page);
    await p.button(t.reset.submit).click();
    await p.expectToast(t.reset.success);
    await expect(page).toHaveURL(/\/login$/);

    const login = await request.post("/api/sign-up", {
      data: { country: "JO", phoneNumber: account.national, password: "x-anything" },
    });
    expect(login.status()).toBe(422); // still the same account
    const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
    const token = await request.post("/auth/v1/token?grant_type=password", {
      headers: { apikey: settings.anonKey },
      data: { phone: toJordanE164(account.national), password: "new-pass-1" },
    });
    expect(token.status(), await token.text()).toBe(200);
  });

  test("five wrong codes use the code up: the right one says so and a new code is offered at once", async ({
    page,
    lang,
    request,
    shot,
  }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    const account = await createPhoneAccount(request, "old-pass-1");
    await page.goto("/forgot-password");
    await p.country.choose("Jordan", lang === "ar" ? "الأردن" : "Jordan");
    await p.phone.fill(account.national);
    await p.button(t.forgot.submit).click();
    await expect(page).toHaveURL(new RegExp(`/send-otp/${account.userId}$`));
    const first = await latestOtp(request, account.e164);
    const wrong = first === "000000" ? "111111" : "000000";
    const otpField = p.field(t.fields.otp);
    for (let i = 0; i < 5; i++) {
      await otpField.fill(wrong);
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/verify-otp"));
      await p.button(t.verify.submit).click();
      await answered;
    }
    // The right code now: before the fix it said "not correct", as if the person had mistyped it.
    await otpField.fill(first);
    await p.button(t.verify.submit).click();
    await p.expectFieldError(p.t.common.errors.too_many_attempts);
    await expect(page).toHaveURL(/\/send-otp\//);
    // The countdown had 60 seconds to run; a used-up code offers Re-Send at once.
    await shot("verify-otp-used-up");
    await p.button(t.verify.resend).click();
    await p.expectToast(t.verify.resent);
    const second = await latestOtp(request, account.e164, first);
    await otpField.fill(second);
    await p.button(t.verify.submit).click();
    await expect(page).toHaveURL(/\/reset-password$/);
  });

  test("an expired or used reset token says so and keeps the passwords typed", async ({ page, lang }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.account;
    await page.addInitScript(() =>
      sessionStorage.setItem("passwordReset", JSON.stringify({ token: "expired-token", country: "JO" })),
    );
    await page.goto("/reset-password");
    await p.field(t.fields.newPassword).fill("new-pass-1");
    await p.field(t.fields.confirmPassword).fill("new-pass-1");
    await p.button(t.reset.submit).click();
    await expect(toast(page, /./).first()).toBeVisible();
    await expect(page).toHaveURL(/\/reset-password$/);
    await expect(p.field(t.fields.newPassword)).toHaveValue("new-pass-1");
  });
});
