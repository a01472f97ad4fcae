import { normalizeDigits } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState, useSyncExternalStore } from "react";
import { LanguageSwitch } from "../components/language-switch.tsx";
import { errorText } from "../lib/errors.ts";
import { useTranslation } from "../lib/i18n.ts";
import { consoleSession } from "./admin-session.ts";
import { AdminField } from "./components/admin-field.tsx";

/**
 * An operator whose account has an authenticator factor works at aal2 only: the server refuses their other sessions
 * with `mfa_required` (modules/auth/guards.ts). The console's calls report that refusal here, and the guard then asks
 * for the authenticator code instead of the page; passing it raises this session, and every query asks again.
 */
let needed = false;
const listeners = new Set<() => void>();
const setNeeded = (value: boolean) => {
  if (needed === value) return;
  needed = value;
  for (const listener of listeners) listener();
};

export const secondFactorRefused = () => setNeeded(true);
// Another sign-in (or none) starts without the last session's refusal.
consoleSession.subscribe((event) => {
  if (event !== "TOKEN_REFRESHED") setNeeded(false);
});

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSecondFactorNeeded(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => needed,
    () => false,
  );
}

export function SecondFactorPrompt() {
  const { t } = useTranslation("admin");
  const id = useId();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const digits = normalizeDigits(code).replace(/\s/g, "");
    if (!/^\d{6}$/.test(digits)) {
      setError(t("secondFactor.invalid"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await consoleSession.passFactor(digits);
      setNeeded(false);
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="admin-center">
      <form className="admin-card admin-card--narrow admin-form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
        <div className="admin-center__top">
          <span />
          <LanguageSwitch />
        </div>
        <h1 id={`${id}-title`}>{t("secondFactor.title")}</h1>
        <p>{t("secondFactor.body")}</p>
        <AdminField
          id={`${id}-code`}
          label={t("secondFactor.code")}
          className="ltr"
          dir="ltr"
          name="one-time-code"
          autoComplete="one-time-code"
          inputMode="numeric"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        {error && (
          <p className="admin-error" id={`${id}-error`} role="alert">
            {error}
          </p>
        )}
        <div className="admin-actions">
          <button type="submit" className="admin-button admin-button--primary" disabled={busy}>
            {t("secondFactor.submit")}
          </button>
          <button type="button" className="admin-button" onClick={() => void consoleSession.signOut()}>
            {t("secondFactor.signOut")}
          </button>
        </div>
      </form>
    </main>
  );
}
