import { type FormEvent, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { PasswordField, TextField } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { loadSettings, loginIdentifier, signInWithPassword, useRememberPreference } from "../../lib/auth.ts";
import { findCountry, looksLikePhone } from "../../lib/countries.ts";
import { errorText, retryAfterOf, waitText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { takeReturnPath } from "../../lib/return-path.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useSecondsLeft } from "../../lib/use-countdown.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";

/**
 * Login with a username or a phone number (read with the selected country's dial code), Remember Me
 * (the session survives a browser restart only when ticked), then to / with a welcome toast.
 */
export function LoginPage() {
  const { t } = useTranslation("account");
  const { t: tc } = useTranslation("common");
  const navigate = useNavigate();
  const [country, setCountry] = useState<string | null>(null);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const stored = useRememberPreference();
  const [choice, setRemember] = useState<boolean | null>(null);
  const remember = choice ?? stored;
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);
  // A locked sign-in (too many wrong passwords): the server's wait, shown counting down, the button held meanwhile.
  const [lockedUntil, setLockedUntil] = useState<number | null>(null);
  const lockedFor = useSecondsLeft(lockedUntil);
  const isPhone = looksLikePhone(username);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = {
      country: isPhone && !country ? t("validation.selectCountry") : null,
      username: username.trim() ? null : t("validation.usernameRequired"),
      password: password ? null : t("validation.passwordRequired"),
    };
    setErrors(next);
    const first = firstError(next);
    if (first) {
      toast.error(first, { toastId: `login-${first}` });
      return;
    }
    setBusy(true);
    try {
      const settings = await loadSettings();
      const identifier = loginIdentifier(username, findCountry(country)?.dialCode, settings.usernameEmailDomain);
      if (!identifier) {
        setErrors({ username: tc("errors.invalid_phone") });
        toast.error(tc("errors.invalid_phone"));
        return;
      }
      await signInWithPassword(identifier, password, remember);
      toast.success(t("login.welcome"));
      navigate(takeReturnPath());
    } catch (error) {
      const wait = retryAfterOf(error);
      if (wait) setLockedUntil(Date.now() + wait * 1000);
      else toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen
      title={t("login.title")}
      heading={t("login.heading")}
      intro={t("login.intro")}
      footer={
        <>
          {t("login.noAccount")} <Link to="/register">{t("login.register")}</Link>
        </>
      }
    >
      <form className="auth-form" method="post" action="/login" onSubmit={submit} noValidate>
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
          label={t("fields.usernameOrPhone")}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          error={errors.username}
          ltr={isPhone}
        />
        <PasswordField
          label={t("fields.password")}
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        <div className="auth-form__row">
          <label className="checkbox">
            <input type="checkbox" name="remember" value="1" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
            <span>{t("login.remember")}</span>
          </label>
          <Link to="/forgot-password">{t("login.forgot")}</Link>
        </div>
        <SubmitButton busy={busy} disabled={lockedFor > 0} className="button--block">
          {t("login.submit")}
        </SubmitButton>
        <p className="auth-form__wait" role="status">
          {lockedFor > 0 ? waitText(lockedFor) : null}
        </p>
      </form>
    </AuthScreen>
  );
}
