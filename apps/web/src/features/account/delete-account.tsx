import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { PasswordField } from "../../components/form-fields.tsx";
import { signOut } from "../../lib/auth.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { deleteAccount } from "./api/account-api.ts";

/**
 * Deleting the account (the Terms promise it from Edit Profile): a confirmation that says what goes and
 * asks for the password; then this device is signed out and the person lands on /login.
 */
export function DeleteAccount() {
  const { t } = useTranslation("account");
  const navigate = useNavigate();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setOpen(false);
    setPassword("");
    setError(null);
  };

  const confirm = async () => {
    if (!password) {
      setError(t("validation.passwordRequired"));
      return;
    }
    setBusy(true);
    try {
      await deleteAccount(password);
      await signOut();
      client.clear();
      toast.success(t("delete.done"));
      navigate("/login", { replace: true });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="auth-form auth-form--danger" aria-labelledby="delete-title">
      <h3 id="delete-title" className="auth-form__title">
        {t("delete.title")}
      </h3>
      <p className="auth-form__legal">{t("delete.intro")}</p>
      <button type="button" className="button button--danger button--block" onClick={() => setOpen(true)}>
        {t("delete.open")}
      </button>
      <ConfirmDialog
        open={open}
        message={t("delete.confirm")}
        stayLabel={t("delete.keep")}
        leaveLabel={t("delete.submit")}
        onStay={close}
        onLeave={() => void confirm()}
        danger
        busy={busy}
      >
        <PasswordField
          label={t("fields.password")}
          name="delete-password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(null);
          }}
          error={error}
        />
      </ConfirmDialog>
    </section>
  );
}
