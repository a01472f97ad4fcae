import { normalizeDigits, resetPasswordRequestSchema } from "@hikaya/contracts";
import { type FormEvent, useEffect, useState } from "react";
import { PasswordField, TextField } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate } from "../../lib/router.tsx";
import { userSession } from "../../lib/session.ts";
import { toast } from "../../lib/toast.tsx";
import { resetPassword } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";
import { InstructionVideo } from "./instruction-video.tsx";
import { clearResetFlow, readResetFlow, writeResetFlow } from "./reset-flow.ts";

/**
 * Reset password: new and confirm (they must match), with the token from the verified code, then /login. An account
 * with an authenticator factor passes it first (the SMS code alone sets no password): its code, then the passwords.
 */
export function ResetPasswordPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const [flow, setFlow] = useState(readResetFlow);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!flow.token) {
      toast.error(t("reset.noToken"), { toastId: "reset-no-token" });
      navigate("/forgot-password", { replace: true });
    }
  }, [flow.token, navigate, t]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The request's own schema (packages/contracts): a password box checks only that it is filled and not over the
    // limit POST /api/reset-password keeps; its strength is the auth server's rule.
    const problems = fieldProblems(resetPasswordRequestSchema, { password, confirmPassword: confirm, token: flow.token });
    const next = {
      password: password
        ? problemText(problems.password, t("fields.newPassword"), t("validation.passwordRequired"))
        : t("validation.passwordRequired"),
      confirm: !confirm
        ? t("validation.confirmRequired")
        : confirm !== password
          ? t("validation.mismatch")
          : problemText(problems.confirmPassword, t("fields.confirmPassword"), t("validation.confirmRequired")),
    };
    setErrors(next);
    const first = firstError(next);
    if (first) {
      toast.error(first, { toastId: `reset-${first}` });
      return;
    }
    setBusy(true);
    try {
      await resetPassword(
        { password, confirmPassword: confirm, token: flow.token ?? "", country: flow.country ?? "" },
        flow.passedToken,
      );
      clearResetFlow();
      toast.success(t("reset.success"));
      navigate("/login");
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  if (flow.mfa && !flow.passedToken)
    return (
      <SecondFactorStep
        recovery={flow.mfa}
        onPassed={(passedToken) => {
          writeResetFlow({ passedToken });
          setFlow(readResetFlow());
        }}
      />
    );

  return (
    <AuthScreen title={t("reset.title")} heading={t("reset.heading")} intro={t("reset.intro")} backTo="/login">
      <form className="auth-form" method="post" onSubmit={submit} noValidate>
        <PasswordField
          label={t("fields.newPassword")}
          name="new-password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        <PasswordField
          label={t("fields.confirmPassword")}
          name="confirm-password"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={errors.confirm}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("reset.submit")}
        </SubmitButton>
      </form>
      <InstructionVideo location="Reset Password" label={t("reset.video")} />
    </AuthScreen>
  );
}

/** The authenticator app's code, which raises the reset's recovery session to aal2. */
function SecondFactorStep({
  recovery,
  onPassed,
}: {
  recovery: { factorId: string; accessToken: string };
  onPassed: (accessToken: string) => void;
}) {
  const { t } = useTranslation("account");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const digits = normalizeDigits(code).replace(/\s/g, "");
    if (!/^\d{6}$/.test(digits)) {
      setError(t("reset.factorInvalid"));
      toast.error(t("reset.factorInvalid"), { toastId: "reset-factor-invalid" });
      return;
    }
    setError(null);
    setBusy(true);
    try {
      onPassed((await userSession.passFactor(digits, recovery)).access_token);
    } catch (err) {
      setError(errorText(err));
      toast.error(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen title={t("reset.title")} heading={t("reset.factorHeading")} intro={t("reset.factorIntro")} backTo="/login">
      <form className="auth-form" onSubmit={submit} noValidate>
        <TextField
          label={t("fields.authenticatorCode")}
          name="one-time-code"
          autoComplete="one-time-code"
          inputMode="numeric"
          ltr
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={error}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("reset.factorSubmit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
