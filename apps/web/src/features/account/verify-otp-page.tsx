import { verifyOtpRequestSchema } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { TextField } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useSecondsLeft } from "../../lib/use-countdown.ts";
import { sendOtp, verifyOtp } from "./api/account-api.ts";
import { AuthScreen } from "./auth-screen.tsx";
import { RESEND_AFTER_SECONDS, readResetFlow, writeResetFlow } from "./reset-flow.ts";

/** Verify OTP (/send-otp/{user-id}): the code, Reset Password, and Re-Send after a countdown. */
export function VerifyOtpPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const { userId: routeUserId = "" } = useParams();
  const [userId, setUserId] = useState(routeUserId);
  const [otp, setOtp] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [resending, setResending] = useState(false);
  const [resendAt, setResendAt] = useState(() => Date.now() + RESEND_AFTER_SECONDS * 1000);
  const secondsLeft = useSecondsLeft(resendAt);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const code = otp.replace(/\s/g, "");
    const problem = problemText(
      fieldProblems(verifyOtpRequestSchema, { otp: code, user: userId }).otp,
      t("fields.otp"),
      t("validation.otpRequired"),
    );
    if (problem) {
      setError(problem);
      toast.error(problem, { toastId: `otp-${problem}` });
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const { token, mfa } = await verifyOtp({ otp: code, user: userId });
      writeResetFlow({
        token,
        userId,
        mfa: mfa ? { factorId: mfa.factorId, accessToken: mfa.accessToken } : undefined,
        passedToken: undefined,
      });
      navigate("/reset-password");
    } catch (err) {
      if (err instanceof ApiError && err.code === "too_many_attempts") {
        // The code is used up, right or wrong: say so by the field and offer a new code now, not after the countdown.
        setError(errorText(err));
        setOtp("");
        setResendAt(Date.now());
        return;
      }
      toast.error(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    const flow = readResetFlow();
    if (!flow.country || !flow.phoneNumber) {
      navigate("/forgot-password");
      return;
    }
    setResending(true);
    try {
      const result = await sendOtp({ country: flow.country, phoneNumber: flow.phoneNumber });
      const id = result.user;
      setUserId(id);
      writeResetFlow({ userId: id });
      setError(null);
      toast.success(t("verify.resent"));
      setResendAt(Date.now() + RESEND_AFTER_SECONDS * 1000);
    } catch (err) {
      toast.error(errorText(err));
    } finally {
      setResending(false);
    }
  };

  return (
    <AuthScreen title={t("verify.title")} heading={t("verify.heading")} intro={t("verify.intro")} backTo="/forgot-password">
      <form className="auth-form" method="post" onSubmit={submit} noValidate>
        <TextField
          label={t("fields.otp")}
          name="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={8}
          ltr
          value={otp}
          onChange={(e) => setOtp(e.target.value.replace(/[^\d\u0660-\u0669\s]/g, ""))}
          error={error}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("verify.submit")}
        </SubmitButton>
        <p className="auth-form__resend" aria-live="polite">
          {t("verify.noCode")}{" "}
          {secondsLeft > 0 ? (
            <span className="muted">{t("verify.resendIn", { seconds: secondsLeft })}</span>
          ) : (
            <button type="button" className="link-button" onClick={resend} disabled={resending}>
              {t("verify.resend")}
            </button>
          )}
        </p>
      </form>
    </AuthScreen>
  );
}
