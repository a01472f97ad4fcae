import { normalizeDigits } from "@hikaya/contracts";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate, useSearchParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { adminSession, consoleSession } from "../admin-session.ts";
import { joinTeam, resetOperatorPassword } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";
import { SignedOutForm } from "../components/signed-out-form.tsx";

/**
 * Where the console's links lead: an invitation (/admin/join?email=…&code=… or ?phone=…&code=…) or an operator's
 * password reset (/admin/reset-password?…). The person chooses a password with the link's code, then is signed in to
 * the console here, in the console's own session (the family app's login would not keep it). An e-mail link's code
 * stays out of sight; a phone invitation shows its code to check against the text. A used or expired code is said
 * so, in their language. An account with an authenticator factor is asked for its code too.
 */
export function AdminJoinPage({ mode = "join" }: { mode?: "join" | "reset" }) {
  const { t } = useTranslation("admin");
  const ns = mode === "join" ? "join" : "reset";
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const email = params.get("email") ?? "";
  const [phone, setPhone] = useState(params.get("phone") ?? "");
  const [code, setCode] = useState(params.get("code") ?? "");
  const [password, setPassword] = useState("");
  // Asked for once the server says the account has an authenticator factor (a texted or e-mailed code alone sets no
  // password then); sent with the same request.
  const [factorCode, setFactorCode] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const byEmail = email !== "";

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const who = byEmail ? { email } : { phone: phone.trim() };
      const authenticator = factorCode ? { authenticatorCode: normalizeDigits(factorCode).replace(/\s/g, "") } : {};
      await (mode === "join" ? joinTeam : resetOperatorPassword)({ ...who, code: code.trim(), password, ...authenticator });
      const session = await consoleSession.signInWithPassword(who, password, true);
      const operator = adminSession(session.access_token);
      toast.success(t(`${ns}.welcome`));
      navigate(operator.status === "admin" && operator.role === "admin" ? "/admin/stories" : "/admin/users", { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === "mfa_required") setFactorCode((current) => current ?? "");
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SignedOutForm
      title={t(`${ns}.title`)}
      intro={t(byEmail ? `${ns}.introEmail` : `${ns}.intro`)}
      error={error}
      onSubmit={submit}
      actions={
        <SubmitButton busy={busy} disabled={(!byEmail && !phone) || !code || !password}>
          {t(`${ns}.submit`)}
        </SubmitButton>
      }
    >
      {byEmail ? (
        <AdminField id="join-email" label={t("join.email")} className="ltr" type="email" readOnly value={email} />
      ) : (
        <>
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
            label={t(`${ns}.code`)}
            className="ltr"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </>
      )}
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
      {factorCode !== null && (
        <AdminField
          id="join-authenticator"
          label={t("secondFactor.code")}
          className="ltr"
          dir="ltr"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={factorCode}
          onChange={(e) => setFactorCode(e.target.value)}
        />
      )}
    </SignedOutForm>
  );
}
