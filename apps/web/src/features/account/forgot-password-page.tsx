import { type FormEvent, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { sendOtp } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";
import { PhoneField } from "./phone-field.tsx";
import { readResetFlow, writeResetFlow } from "./reset-flow.ts";

/** Forgot password: country and phone number, Send OTP, then /send-otp/{user-id}. */
export function ForgotPasswordPage() {
  const { t } = useTranslation("account");
  const navigate = useNavigate();
  const [country, setCountry] = useState<string | null>(() => readResetFlow().country ?? null);
  const [phone, setPhone] = useState(() => readResetFlow().phoneNumber ?? "");
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = {
      country: country ? null : t("validation.selectCountry"),
      phone: phone.trim() ? null : t("validation.phoneRequired"),
    };
    setErrors(next);
    const first = firstError(next);
    if (first || !country) {
      if (first) toast.error(first, { toastId: `forgot-${first}` });
      return;
    }
    setBusy(true);
    try {
      const result = await sendOtp({ country, phoneNumber: phone.trim() });
      const userId = result.user;
      writeResetFlow({ country, phoneNumber: phone.trim(), userId, token: undefined });
      toast.success(t("forgot.sent"));
      navigate(`/send-otp/${encodeURIComponent(userId)}`);
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen
      title={t("forgot.title")}
      heading={t("forgot.heading")}
      intro={t("forgot.intro")}
      backTo="/login"
      footer={<Link to="/login">{t("forgot.backToLogin")}</Link>}
    >
      <form className="auth-form" method="post" action="/forgot-password" onSubmit={submit} noValidate>
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
        <PhoneField country={country} value={phone} onChange={setPhone} error={errors.phone} />
        <SubmitButton busy={busy} className="button--block">
          {t("forgot.submit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
