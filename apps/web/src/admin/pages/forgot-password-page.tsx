import { type FormEvent, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { recoverOperator } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";
import { contactForServer } from "../components/operator-contact.ts";

/**
 * An operator's forgotten password: their e-mail or phone (with its country) gets a link to the console's reset page
 * (/admin/reset-password), never the family app's. The answer is the same whether or not the account is an operator's.
 */
export function AdminForgotPasswordPage() {
  const { t } = useTranslation("admin");
  const [country, setCountry] = useState<string | null>(null);
  const [contact, setContact] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSent(false);
    try {
      await recoverOperator(contactForServer(contact, country));
      setSent(true);
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
        <h1>{t("forgot.title")}</h1>
        <p className="admin-muted">{t("forgot.intro")}</p>
        <CountrySelect label={t("login.country")} value={country} onChange={setCountry} />
        <AdminField
          id="forgot-contact"
          label={t("login.email")}
          className="ltr"
          type="text"
          inputMode="email"
          autoComplete="username"
          required
          value={contact}
          onChange={(e) => setContact(e.target.value)}
        />
        {error && (
          <p className="admin-error" role="alert">
            {error}
          </p>
        )}
        {sent && <p role="status">{t("forgot.sent")}</p>}
        <SubmitButton busy={busy} disabled={!contact.trim()}>
          {t("forgot.submit")}
        </SubmitButton>
        <Link to="/admin/login" className="admin-link">
          {t("forgot.back")}
        </Link>
      </form>
    </main>
  );
}
