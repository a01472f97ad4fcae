import type { AccountSettings, PreferencesRequest } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "../../lib/toast.tsx";
import { accountQuery, savePreferences } from "../../lib/account.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";

/**
 * The reminders and WhatsApp answers as the server stores them; each change is saved at once. The box
 * follows the tap straight away and goes back if the server refuses.
 */
export function AccountPreferences({ settings }: { settings: AccountSettings }) {
  const { t } = useTranslation("account");
  const client = useQueryClient();
  const [draft, setDraft] = useState<PreferencesRequest>({});
  const busy = Object.keys(draft).length > 0;
  const reminders = draft.agreeToReminder ?? settings.agreeToReminder;
  const whatsapp = draft.whatsappOptIn ?? settings.whatsappOptIn === true;

  const save = async (change: PreferencesRequest) => {
    setDraft(change);
    try {
      client.setQueryData(accountQuery.queryKey, await savePreferences(change));
      toast.success(t("edit.success"), { toastId: "preferences-saved" });
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setDraft({});
    }
  };

  return (
    <section className="auth-form" aria-labelledby="preferences-title" aria-busy={busy}>
      <h3 id="preferences-title" className="auth-form__title">
        {t("preferences.title")}
      </h3>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={reminders}
          disabled={busy}
          onChange={(e) => void save({ agreeToReminder: e.target.checked })}
        />
        <span>{t("register.reminders")}</span>
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={whatsapp}
          disabled={busy}
          onChange={(e) => void save({ whatsappOptIn: e.target.checked })}
        />
        <span>{t("preferences.whatsapp")}</span>
      </label>
    </section>
  );
}
