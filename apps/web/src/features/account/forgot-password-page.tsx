import { sendOtpRequestSchema } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { AccountFields } from "./account-fields.tsx";
import { sendOtp } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";
import { readResetFlow, writeResetFlow } from "./reset-flow.ts";

/** Forgot password: country and phone number, Send OTP, then /send-otp/{user-id}. */
export function ForgotPasswordPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const [country, setCountry] = useState<string | null>(() => readResetFlow().country ?? null);
  const [phone, setPhone] = useState(() => readResetFlow().phoneNumber ?? "");
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The request's own schema (packages/contracts), the one POST /api/send-otp parses.
    const problems = fieldProblems(sendOtpRequestSchema, { country: country ?? "", phoneNumber: phone });
    const next = {
      country: problemText(problems.country, t("fields.country"), t("validation.selectCountry")),
      phone: problemText(problems.phoneNumber, t("fields.phone"), t("validation.phoneRequired")),
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
        <AccountFields country={[country, setCountry]} phone={[phone, setPhone]} errors={[errors, setErrors]} />
        <SubmitButton busy={busy} className="button--block">
          {t("forgot.submit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
