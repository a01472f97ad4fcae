import { isValidUsername } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { PasswordField, TextField } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { track } from "../../lib/analytics.ts";
import { signUpWithUsername } from "../../lib/auth.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { takeReturnPath } from "../../lib/return-path.ts";
import { Link, useNavigate, useSearchParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { createUser } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";

/** Register (English): country, username, password, reminders (default on), terms and privacy links. */
export function RegisterPage() {
  const { t } = useTranslation("account");
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const fromLandingPage = params.get("fromLandingPage") === "1";
  const [country, setCountry] = useState<string | null>(null);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [reminders, setReminders] = useState(true);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = {
      country: country ? null : t("validation.selectCountry"),
      username: !username.trim()
        ? t("validation.usernameRequired")
        : isValidUsername(username)
          ? null
          : t("validation.usernameRule"),
      password: password ? null : t("validation.passwordRequired"),
    };
    setErrors(next);
    const first = firstError(next);
    if (first) {
      toast.error(first, { toastId: `register-${first}` });
      return;
    }
    setBusy(true);
    try {
      const { userId } = await signUpWithUsername(username, password);
      await createUser({
        id: userId,
        countryCode: country ?? "",
        name: username.trim(),
        fromLandingPage,
        agreeToReminder: reminders,
        language: currentLanguage(),
      }).catch(() => {
        // The account exists; a missing profile row is filled in on first profile read.
      });
      track("signup", { fromLandingPage, agreeToReminder: reminders, method: "username" });
      toast.success(t("register.success"));
      navigate(takeReturnPath());
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen
      title={t("register.title")}
      heading={t("register.heading")}
      intro={t("register.intro")}
      footer={
        <>
          {t("register.haveAccount")} <Link to="/login">{t("register.login")}</Link>
        </>
      }
    >
      <form className="auth-form" method="post" action="/register" onSubmit={submit} noValidate>
        <CountrySelect
          label={t("fields.country")}
          name="country"
          value={country}
          onChange={(code) => {
            setCountry(code);
            setErrors((e) => ({ ...e, country: null }));
          }}
          error={errors.country}
        />
        <TextField
          label={t("fields.username")}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          onChange={(e) => {
            setUsername(e.target.value);
            setErrors((prev) => ({ ...prev, username: null }));
          }}
          hint={t("register.usernameRule")}
          error={errors.username}
        />
        <PasswordField
          label={t("fields.password")}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setErrors((prev) => ({ ...prev, password: null }));
          }}
          error={errors.password}
        />
        <label className="checkbox">
          <input
            type="checkbox"
            name="agreeToReminder"
            value="1"
            checked={reminders}
            onChange={(e) => setReminders(e.target.checked)}
          />
          <span>{t("register.reminders")}</span>
        </label>
        <p className="auth-form__legal">
          {t("register.agree")}{" "}
          <a href="/termandcondtion" target="_blank" rel="noopener">
            {t("links.terms")}
          </a>
          {t("register.and")}
          <a href="/privacypolicy" target="_blank" rel="noopener">
            {t("links.privacy")}
          </a>
        </p>
        <SubmitButton busy={busy} className="button--block">
          {t("register.submit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
