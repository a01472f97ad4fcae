import { changePasswordRequestSchema } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { PasswordField } from "../../components/form-fields.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { SubmitButton } from "../../components/submit-button.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { changePassword } from "./api/account-api.ts";
import { AuthScreen, firstError } from "./auth-screen.tsx";

/** Change password: current and new (POST /api/change-password), for a signed-in person. */
export function ChangePasswordPage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  const navigate = useNavigate();
  const signedIn = useRequireUser();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The request's own schema (packages/contracts): filled, and within the limit POST /api/change-password keeps.
    const problems = fieldProblems(changePasswordRequestSchema, { oldPassword: current, newPassword: next });
    const found = {
      current: current
        ? problemText(problems.oldPassword, t("fields.currentPassword"), t("validation.passwordRequired"))
        : t("validation.passwordRequired"),
      next: next
        ? problemText(problems.newPassword, t("fields.newPassword"), t("validation.newPasswordRequired"))
        : t("validation.newPasswordRequired"),
    };
    setErrors(found);
    const first = firstError(found);
    if (first) {
      toast.error(first, { toastId: `change-${first}` });
      return;
    }
    setBusy(true);
    try {
      await changePassword({ oldPassword: current, newPassword: next });
      toast.success(t("change.success"));
      setCurrent("");
      setNext("");
      navigate("/");
    } catch (error) {
      if (error instanceof ApiError && error.code === "incorrect_password")
        setErrors((e) => ({ ...e, current: errorText(error) }));
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthScreen title={t("change.title")} heading={t("change.heading")} intro={t("change.intro")} backTo="/">
      <form className="auth-form" method="post" onSubmit={submit} noValidate aria-busy={!signedIn}>
        <PasswordField
          label={t("fields.currentPassword")}
          name="current-password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={errors.current}
        />
        <PasswordField
          label={t("fields.newPassword")}
          name="new-password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          error={errors.next}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("change.submit")}
        </SubmitButton>
      </form>
    </AuthScreen>
  );
}
