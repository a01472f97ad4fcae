import type { FormEvent, ReactNode } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { AdminField } from "./admin-field.tsx";

/**
 * The console's pages for someone not yet signed in (sign-in, joining the team, a forgotten password): one narrow
 * card with the mark and the language switch, a heading, what the page is for, the fields, the form's error, then
 * its actions (the submit button, a link away).
 */
export function SignedOutForm({
  title,
  intro,
  error,
  onSubmit,
  children,
  actions,
}: {
  title: string;
  intro: string;
  error: string | null;
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
  actions: ReactNode;
}) {
  return (
    <main className="admin-center">
      <form className="admin-card admin-card--narrow admin-form" method="post" onSubmit={onSubmit} noValidate>
        <div className="admin-center__top">
          <span className="admin-nav__logo" aria-hidden="true">
            ح
          </span>
          <LanguageSwitch />
        </div>
        <h1>{title}</h1>
        <p className="admin-muted">{intro}</p>
        {children}
        {error && (
          <p className="admin-error" role="alert">
            {error}
          </p>
        )}
        {actions}
      </form>
    </main>
  );
}

/**
 * An operator's e-mail, or the phone they were invited by with its country chosen beside it (read by
 * `operator-contact.ts`), as the sign-in and forgotten-password pages ask for it.
 */
export function ContactFields({
  id,
  country,
  onCountry,
  value,
  onChange,
}: {
  id: string;
  country: string | null;
  onCountry: (country: string | null) => void;
  value: string;
  onChange: (value: string) => void;
}) {
  const { t } = useTranslation("admin");
  return (
    <>
      <CountrySelect label={t("login.country")} value={country} onChange={onCountry} />
      <AdminField
        id={id}
        label={t("login.email")}
        className="ltr"
        type="text"
        inputMode="email"
        autoComplete="username"
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </>
  );
}
