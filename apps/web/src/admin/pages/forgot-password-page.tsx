import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { recoverOperator } from "../api.ts";
import { contactForServer } from "../components/operator-contact.ts";
import { ContactFields, SignedOutForm } from "../components/signed-out-form.tsx";

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
    <SignedOutForm
      title={t("forgot.title")}
      intro={t("forgot.intro")}
      error={error}
      onSubmit={submit}
      actions={
        <>
          {sent && <p role="status">{t("forgot.sent")}</p>}
          <SubmitButton busy={busy} disabled={!contact.trim()}>
            {t("forgot.submit")}
          </SubmitButton>
          <Link to="/admin/login" className="admin-link">
            {t("forgot.back")}
          </Link>
        </>
      }
    >
      <ContactFields id="forgot-contact" country={country} onCountry={setCountry} value={contact} onChange={setContact} />
    </SignedOutForm>
  );
}
