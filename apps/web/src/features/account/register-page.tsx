import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { track } from "../../lib/analytics.ts";
import { signUpWithUsername } from "../../lib/auth.ts";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, schemaOnDemand, useProblemText } from "../../lib/form-rules.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { takeReturnPath } from "../../lib/return-path.ts";
import { Link, useNavigate, useSearchParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { AccountFields } from "./account-fields.tsx";
import { createUser } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";

const registerSchema = schemaOnDemand(() => import("./account-schemas.ts").then((m) => m.usernameRegisterFormSchema));

/** Register (English): country, username, password, reminders (default on), terms and privacy links. */
export function RegisterPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const fromLandingPage = params.get("fromLandingPage") === "1";
  const [country, setCountry] = useState<string | null>(null);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [reminders, setReminders] = useState(true);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  // The form's rules load once the person starts on it, not with the page (lib/form-rules.ts schemaOnDemand).
  const prepare = () => void registerSchema().catch(() => undefined);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The form's own schema (packages/contracts), which the server reads a script-less post with too.
    const schema = await registerSchema().catch((error: unknown) => void toast.error(errorText(error)));
    if (!schema) return; // offline before the form's rules arrived: said, and nothing sent
    const problems = fieldProblems(schema, { country: country ?? "", username, password });
    const next = {
      country: problemText(problems.country, t("fields.country"), t("validation.selectCountry")),
      username:
        problems.username?.reason === "invalid"
          ? t("validation.usernameRule")
          : problemText(problems.username, t("fields.username"), t("validation.usernameRequired")),
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
      <form className="auth-form" method="post" action="/register" onSubmit={submit} onFocus={prepare} noValidate>
        <AccountFields
          country={[country, setCountry]}
          username={{ label: t("fields.username"), value: username, onChange: setUsername, hint: t("register.usernameRule") }}
          password={{ value: password, onChange: setPassword, autoComplete: "new-password" }}
          errors={[errors, setErrors]}
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
