import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { loadSettings, loginIdentifier, signInWithPassword, useRememberPreference } from "../../lib/auth.ts";
import { findCountry, looksLikePhone } from "../../lib/countries.ts";
import { errorText, retryAfterOf, waitText } from "../../lib/errors.ts";
import { fieldProblems, schemaOnDemand, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { takeReturnPath } from "../../lib/return-path.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useSecondsLeft } from "../../lib/use-countdown.ts";
import { AccountFields } from "./account-fields.tsx";
import { AuthScreen, firstError } from "./auth-screen.tsx";

const loginSchema = schemaOnDemand(() => import("./account-schemas.ts").then((m) => m.loginFormSchema));

/**
 * Login with a username or a phone number (read with the selected country's dial code), Remember Me
 * (the session survives a browser restart only when ticked), then to / with a welcome toast.
 */
export function LoginPage() {
  const { t } = useTranslation("account");
  const { t: tc } = useTranslation("common");
  const problemText = useProblemText();
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

  // The form's rules load once the person starts on it, not with the page (lib/form-rules.ts schemaOnDemand).
  const prepare = () => void loginSchema().catch(() => undefined);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The form's own schema (packages/contracts), which the server reads a script-less post with too.
    const schema = await loginSchema().catch((error: unknown) => void toast.error(errorText(error)));
    if (!schema) return; // offline before the form's rules arrived: said, and nothing sent
    const problems = fieldProblems(schema, { country: country ?? undefined, username, password });
    const next = {
      country: problems.country ? t("validation.selectCountry") : null,
      username: problemText(problems.username, t("fields.usernameOrPhone"), t("validation.usernameRequired")),
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
      <form className="auth-form" method="post" action="/login" onSubmit={submit} onFocus={prepare} noValidate>
        <AccountFields
          country={[country, setCountry]}
          username={{ label: t("fields.usernameOrPhone"), value: username, onChange: setUsername, ltr: isPhone }}
          password={{ value: password, onChange: setPassword, autoComplete: "current-password" }}
          errors={[errors, setErrors]}
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
