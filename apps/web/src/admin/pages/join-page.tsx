import { type FormEvent, useState } from "react";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate, useSearchParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminSession, consoleSession } from "../admin-session.ts";
import { joinTeam } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";

/**
 * Where an invitation sent by phone leads (/admin/join?phone=…&code=…): the invited person chooses their password
 * with the invitation's code, then is signed in to the console. A used or expired code is said so, in their language.
 */
export function AdminJoinPage() {
  const { t } = useTranslation("admin");
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [phone, setPhone] = useState(params.get("phone") ?? "");
  const [code, setCode] = useState(params.get("code") ?? "");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await joinTeam({ phone: phone.trim(), code: code.trim(), password });
      const session = await consoleSession.signInWithPassword({ phone: phone.trim() }, password, true);
      const operator = adminSession(session.access_token);
      toast.success(t("join.welcome"));
      navigate(operator.status === "admin" && operator.role === "admin" ? "/admin/stories" : "/admin/users", { replace: true });
    } catch (err) {
      setError(errorText(err));
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
        <h1>{t("join.title")}</h1>
        <p className="admin-muted">{t("join.intro")}</p>
        <AdminField
          id="join-phone"
          label={t("join.phone")}
          className="ltr"
          type="tel"
          autoComplete="tel"
          required
          value={phone}
          onChange={(e) => setPhone(e.target.value)}
        />
        <AdminField
          id="join-code"
          label={t("join.code")}
          className="ltr"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <AdminField
          id="join-password"
          label={t("join.password")}
          className="ltr"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error && (
          <p className="admin-error" role="alert">
            {error}
          </p>
        )}
        <SubmitButton busy={busy} disabled={!phone || !code || !password}>
          {t("join.submit")}
        </SubmitButton>
      </form>
    </main>
  );
}
