import type { AccountSettings, MessageChannel } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { TextField } from "../../components/form-fields.tsx";
import { accountQuery } from "../../lib/account.ts";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { cancelPhoneChange, startPhoneChange, verifyPhoneChange } from "./api/account-api.ts";

/** SMS or WhatsApp: how the code for a new phone number is sent. */
export function ChannelChoice({ value, onChange }: { value: MessageChannel; onChange(value: MessageChannel): void }) {
  const { t } = useTranslation("account");
  return (
    <fieldset className="auth-form__choice">
      <legend>{t("phoneChange.channel")}</legend>
      {(["sms", "whatsapp"] as const).map((channel) => (
        <label key={channel} className="checkbox">
          <input type="radio" name="channel" checked={value === channel} onChange={() => onChange(channel)} />
          <span>{t(`phoneChange.channels.${channel}`)}</span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * A phone change waiting for its code: the number it was sent to, the code, Re-Send and Cancel.
 * Until the code is verified the person still signs in with the old number, and the screen says so.
 */
export function PendingPhoneChange({
  pending,
  country,
}: {
  pending: NonNullable<AccountSettings["pendingPhone"]>;
  country: string | null;
}) {
  const { t } = useTranslation("account");
  const client = useQueryClient();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const settle = (settings: AccountSettings) => client.setQueryData(accountQuery.queryKey, settings);

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) {
      setError(t("validation.otpRequired"));
      return;
    }
    setBusy(true);
    try {
      settle(await verifyPhoneChange(code));
      void client.invalidateQueries({ queryKey: ["me"] });
      toast.success(t("phoneChange.done"));
    } catch (err) {
      setError(errorText(err));
      // A used-up code cannot be retried: empty the field so the next step is Re-Send, not retyping.
      if (err instanceof ApiError && err.code === "too_many_attempts") setCode("");
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    try {
      // The pending number is complete (with its "+" and dial code), so any country reads it.
      settle(await startPhoneChange({ country: country ?? "JO", phoneNumber: pending.e164, channel: pending.channel }));
      setError(null);
      toast.info(t("phoneChange.resent"), { toastId: "phone-resent" });
    } catch (err) {
      toast.error(errorText(err));
    }
  };

  const cancel = async () => {
    try {
      settle(await cancelPhoneChange());
    } catch (err) {
      toast.error(errorText(err));
    }
  };

  return (
    <form className="auth-form auth-form--notice" method="post" onSubmit={verify} noValidate aria-live="polite">
      <p className="auth-form__legal">
        {t("phoneChange.pending", { channel: t(`phoneChange.channels.${pending.channel}`) })}{" "}
        <bdi className="ltr">{pending.e164}</bdi>
      </p>
      <TextField
        label={t("phoneChange.code")}
        name="phone-change-code"
        inputMode="numeric"
        autoComplete="one-time-code"
        ltr
        value={code}
        onChange={(e) => {
          setCode(e.target.value);
          setError(null);
        }}
        error={error}
      />
      <button type="submit" className="button button--primary button--block" disabled={busy} aria-busy={busy}>
        {t("phoneChange.confirm")}
      </button>
      <div className="auth-form__row">
        <button type="button" className="link-button" onClick={() => void resend()}>
          {t("phoneChange.resend")}
        </button>
        <button type="button" className="link-button" onClick={() => void cancel()}>
          {t("phoneChange.cancel")}
        </button>
      </div>
    </form>
  );
}
