import { type FormEvent, useState } from "react";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { AuthApiError } from "../../lib/auth-session.ts";
import { toE164 } from "../../lib/countries.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate } from "../../lib/router.tsx";
import { useSettings } from "../../lib/settings.ts";
import { toast } from "../../lib/toast.tsx";
import { adminSession, consoleSession } from "../admin-session.ts";
import { AdminField } from "../components/admin-field.tsx";

/** Sign-in for operators: e-mail (or the phone they were invited by) and password against /auth/v1/token, then the console. */
export function AdminLoginPage() {
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const settings = useSettings();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!settings.data) return;
    setBusy(true);
    setError(null);
    try {
      // Operators invited by phone sign in with it: an international number ("+…" or "00…") is read as a phone.
      const phone = toE164(email, undefined);
      const session = await consoleSession.signInWithPassword(phone ? { phone } : { email: email.trim() }, password, true);
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
    <main className="admin-center">
      <form className="admin-card admin-card--narrow admin-form" onSubmit={submit} noValidate>
        <div className="admin-center__top">
          <span className="admin-nav__logo" aria-hidden="true">
            ح
          </span>
          <LanguageSwitch />
        </div>
        <h1>{t("login.title")}</h1>
        <p className="admin-muted">{t("login.intro")}</p>
        <AdminField
          id="admin-email"
          label={t("login.email")}
          className="ltr"
          type="text"
          inputMode="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
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
        {error && (
          <p className="admin-error" role="alert">
            {error}
          </p>
        )}
        <SubmitButton busy={busy || settings.isPending} disabled={!email || !password}>
          {t("login.submit")}
        </SubmitButton>
      </form>
    </main>
  );
}
