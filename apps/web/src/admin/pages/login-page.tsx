import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { AuthApiError } from "../../lib/auth-session.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate } from "../../lib/router.tsx";
import { useSettings } from "../../lib/settings.ts";
import { toast } from "../../lib/toast.tsx";
import { adminSession, consoleSession } from "../admin-session.ts";
import { AdminField } from "../components/admin-field.tsx";
import { operatorContact } from "../components/operator-contact.ts";
import { ContactFields, SignedOutForm } from "../components/signed-out-form.tsx";

/**
 * Sign-in for operators: e-mail (or the phone they were invited by, read with the country chosen beside it, as the
 * family app's login reads it) and password against /auth/v1/token, then the console.
 */
export function AdminLoginPage() {
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const settings = useSettings();
  const [country, setCountry] = useState<string | null>(null);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!settings.data) return;
    const identifier = operatorContact(email, country);
    if (!identifier) {
      setError(t("login.invalidPhone"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const session = await consoleSession.signInWithPassword(identifier, password, true);
      const operator = adminSession(session.access_token);
      if (operator.status !== "admin") {
        // Not an operator: end that session at once rather than keep a family member's tokens in the console.
        await consoleSession.signOut();
        setError(t("login.notAdmin"));
        return;
      }
      toast.success(t("login.welcome"));
      // Facilitators start on people; the inbox is one tap away.
      navigate(operator.role === "admin" ? "/admin/stories" : "/admin/users", { replace: true });
    } catch (error) {
      setError(error instanceof AuthApiError && error.status > 0 && error.status < 500 ? t("login.failed") : t("login.network"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SignedOutForm
      title={t("login.title")}
      intro={t("login.intro")}
      error={error}
      onSubmit={submit}
      actions={
        <>
          <SubmitButton busy={busy || settings.isPending} disabled={!email || !password}>
            {t("login.submit")}
          </SubmitButton>
          <Link to="/admin/forgot-password" className="admin-link">
            {t("login.forgot")}
          </Link>
        </>
      }
    >
      <ContactFields id="admin-email" country={country} onCountry={setCountry} value={email} onChange={setEmail} />
      <AdminField
        id="admin-password"
        label={t("login.password")}
        className="ltr"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
    </SignedOutForm>
  );
}
