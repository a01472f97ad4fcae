import { AccountPages, createPhoneAccount, dismissToasts, latestOtp, passwordSignIn, toJordanE164 } from "../pages/account.ts";
import { adminToken, Console } from "../pages/admin.ts";
import { COMMON } from "../pages/journey.ts";
import { enrollAuthenticator, totpCode } from "../support/authenticator.ts";
import { expect, test } from "../support/fixtures.ts";

// Issue 37, one MFA rule: with an authenticator factor on the account, neither the texted reset code nor a password
// alone is enough; the app and the console ask for the authenticator's code.
test.use({ locale: "en", timezoneId: "UTC" });

test("a forgotten password on an account with an authenticator: the texted code, then the app's code, then the password", async ({
  page,
  lang,
  request,
  shot,
}) => {
  const p = new AccountPages(page, lang);
  const t = p.t.account;
  const account = await createPhoneAccount(request, "old-pass-1");
  const factor = await enrollAuthenticator(request, account.token);

  await page.goto("/forgot-password");
  await p.country.choose("Jordan", lang === "ar" ? "الأردن" : "Jordan");
  await p.phone.fill(account.national);
  await p.button(t.forgot.submit).click();
  await expect(page).toHaveURL(new RegExp(`/send-otp/${account.userId}$`));
  await p.field(t.fields.otp).fill(await latestOtp(request, account.e164));
  await p.button(t.verify.submit).click();
  await expect(page).toHaveURL(/\/reset-password$/);

  // The authenticator's code comes first; a wrong one is refused in the person's language.
  await expect(page.getByRole("heading", { name: t.reset.factorHeading })).toBeVisible();
  await expect(p.field(t.fields.newPassword)).toHaveCount(0);
  await shot("reset-authenticator");
  const code = p.field(t.fields.authenticatorCode);
  const right = totpCode(factor.secret, 1);
  await code.fill(right === "000000" ? "111111" : "000000");
  await dismissToasts(page);
  await p.button(t.reset.factorSubmit).click();
  await p.expectToast(p.t.common.errors.mfa_invalid_code);
  await code.fill(right);
  await dismissToasts(page);
  await p.button(t.reset.factorSubmit).click();

  await p.field(t.fields.newPassword).fill("new-pass-1");
  await p.field(t.fields.confirmPassword).fill("new-pass-1");
  await p.button(t.reset.submit).click();
  await p.expectToast(t.reset.success);
  await expect(page).toHaveURL(/\/login$/);
  const signIn = await passwordSignIn(request, { phone: toJordanE164(account.national) }, "new-pass-1");
  expect(signIn.status(), await signIn.text()).toBe(200);
});

test("an operator with an authenticator signs in to the console and is asked for its code before any page", async ({
  page,
  lang,
  request,
  shot,
}) => {
  // A new admin (the shared e2e admin stays without a factor) who set up an authenticator.
  const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const email = `mfa-${lang}-${Date.now().toString(36)}@operators.hikaya.test`;
  const created = await request.post("/auth/v1/admin/users", {
    headers: { apikey: settings.anonKey, authorization: `Bearer ${await adminToken(request)}` },
    data: { email, password: "operator-pass-1", email_confirm: true, app_metadata: { role: "admin" } },
  });
  expect(created.status(), await created.text()).toBe(200);
  const session = await passwordSignIn(request, { email }, "operator-pass-1");
  const factor = await enrollAuthenticator(request, ((await session.json()) as { access_token: string }).access_token);

  await page.setViewportSize({ width: 1280, height: 860 });
  const c = new Console(page, lang);
  const s = c.s;
  await page.goto("/admin/login");
  await page.getByLabel(s.login.email).fill(email);
  await page.getByLabel(s.login.password, { exact: true }).fill("operator-pass-1");
  await page.getByRole("button", { name: s.login.submit }).click();

  // The password alone opens nothing: the console asks for the authenticator's code.
  await expect(page.getByRole("heading", { level: 1, name: s.secondFactor.title })).toBeVisible();
  await expect(page.getByRole("navigation", { name: s.nav.label })).toHaveCount(0);
  await shot("console-authenticator");
  const code = page.getByLabel(s.secondFactor.code, { exact: true });
  const right = totpCode(factor.secret, 1);
  await code.fill(right === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: s.secondFactor.submit }).click();
  await expect(page.getByText(COMMON[lang].errors.mfa_invalid_code)).toBeVisible();
  await code.fill(right);
  await page.getByRole("button", { name: s.secondFactor.submit }).click();
  await expect(page.getByRole("heading", { level: 1, name: s.stories.title })).toBeVisible();
  await expect(page.getByRole("navigation", { name: s.nav.label })).toBeVisible();
});
