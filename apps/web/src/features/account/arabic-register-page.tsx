import { phoneSignUpRequestSchema } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { track } from "../../lib/analytics.ts";
import { ApiError } from "../../lib/api-client.ts";
import { storeTokenSession } from "../../lib/auth.ts";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { currentLanguage, useArabicFirst, useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { AccountFields } from "./account-fields.tsx";
import { phoneSignUp } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";

/**
 * Arabic register: phone-number sign-up (POST /api/sign-up), right-to-left. It opens in Arabic unless
 * the address asks for a language (?lng=en); the language switch still works. Success stores the
 * token and plays the landing video (/landing-page).
 */
export function ArabicRegisterPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const [country, setCountry] = useState<string | null>(null);
  const [phone, setPhone] = useState("");
  const [password, setPassword] = useState("");
  const [reminders, setReminders] = useState(true);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  useArabicFirst();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The server's own rules for the request (packages/contracts); a password's strength is the auth server's to judge.
    const problems = fieldProblems(phoneSignUpRequestSchema, { country: country ?? "", phoneNumber: phone, password });
    const next = {
      country: problemText(problems.country, t("fields.country"), t("validation.selectCountry")),
      phone: problemText(problems.phoneNumber, t("fields.phone"), t("validation.phoneRequired")),
      password: password ? null : t("validation.passwordRequired"),
    };
    setErrors(next);
    const first = firstError(next);
    if (first || !country) {
      if (first) toast.error(first, { toastId: `arabic-register-${first}` });
      return;
    }
    setBusy(true);
    try {
      const result = await phoneSignUp({
        country,
        phoneNumber: phone.trim(),
        password,
        agreeToReminder: reminders,
        language: currentLanguage(),
      });
      storeTokenSession(result.token, result.user.id, { refreshToken: result.refreshToken, expiresAt: result.expiresAt });
      track("signup", { agreeToReminder: reminders, method: "phone" });
      toast.success(t("register.success"));
      navigate("/landing-page");
    } catch (error) {
      // A number the server refuses is marked on its field, as the other account screens do, not only in a toast.
      if (error instanceof ApiError && (error.code === "invalid_phone" || error.code === "phone_in_use"))
        setErrors((e) => ({ ...e, phone: errorText(error) }));
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen
      title={t("register.title")}
      heading={t("register.heading")}
      intro={t("arabicRegister.intro")}
      footer={
        <>
          {t("register.haveAccount")} <Link to="/login">{t("register.login")}</Link>
        </>
      }
    >
      <form className="auth-form" method="post" onSubmit={submit} noValidate>
        <AccountFields
          country={[country, setCountry]}
          phone={[phone, setPhone]}
          password={{ value: password, onChange: setPassword, autoComplete: "new-password" }}
          errors={[errors, setErrors]}
        />
        <label className="checkbox">
          <input type="checkbox" checked={reminders} onChange={(e) => setReminders(e.target.checked)} />
          <span>{t("register.reminders")}</span>
        </label>
        <SubmitButton busy={busy} className="button--block">
          {t("register.submit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
