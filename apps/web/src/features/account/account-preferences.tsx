import { type AccountSettings, type PreferencesRequest, VIEWING_MODES } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { accountQuery, savePreferences } from "../../lib/account.ts";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { type PushState, pushState, turnPushOff, turnPushOn } from "../../lib/push.ts";
import { toast } from "../../lib/toast.tsx";

/** Why the notifications switch cannot be used, and what to do. "unanswered" leaves it on, to try again. */
const PUSH_NOTES = {
  unsupported: "preferences.pushUnsupported",
  denied: "preferences.pushDenied",
  unanswered: "preferences.pushUnanswered",
} as const;

/**
 * The reminders and WhatsApp answers as the server stores them; each change is saved at once. The box
 * follows the tap straight away and goes back if the server refuses. Reminders turned off (here, by the
 * link in a reminder, or by replying STOP) say how and when. Notifications for the team's replies belong
 * to this browser (a push subscription), so their switch reads the browser's state.
 */
export function AccountPreferences({ settings }: { settings: AccountSettings }) {
  const { t, i18n } = useTranslation("account");
  const [push, setPush] = useState<PushState | "busy">("busy");
  useEffect(() => {
    void pushState().then(setPush, () => setPush("unsupported"));
  }, []);
  const togglePush = async (on: boolean) => {
    setPush("busy");
    try {
      setPush(on ? await turnPushOn() : await turnPushOff());
    } catch (error) {
      toast.error(errorText(error));
      setPush(await pushState().catch(() => "unsupported" as const));
    }
  };
  const client = useQueryClient();
  const [draft, setDraft] = useState<PreferencesRequest>({});
  const busy = Object.keys(draft).length > 0;
  const reminders = draft.agreeToReminder ?? settings.agreeToReminder;
  const whatsapp = draft.whatsappOptIn ?? settings.whatsappOptIn === true;
  const viewing = draft.viewingMode ?? settings.viewingMode;

  const save = async (change: PreferencesRequest) => {
    setDraft(change);
    try {
      client.setQueryData(accountQuery.queryKey, await savePreferences(change));
      toast.success(t("edit.success"), { toastId: "preferences-saved" });
    } catch (error) {
      toast.error(errorText(error));
      setDraft({});
    }
  };
  // A saved answer leaves the draft once it has reached this screen as `settings`: TanStack Query tells its
  // subscribers a moment after setQueryData, and a draft cleared before that showed the old answer in between
  // (the box flicked back after a fast save). Adjusted while rendering, as React advises for state that follows a
  // prop, rather than in an effect that would show one frame with the stale draft.
  const [draftOf, setDraftOf] = useState(settings);
  if (draftOf !== settings) {
    setDraftOf(settings);
    setDraft({});
  }

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
      {!reminders && settings.remindersStoppedVia && settings.agreeToReminderAt && (
        <p className="auth-form__note" data-testid="reminders-stopped">
          {t(`preferences.stoppedVia.${settings.remindersStoppedVia}`, {
            date: formatDateTime(settings.agreeToReminderAt, i18n.language),
          })}
        </p>
      )}
      <label className="checkbox">
        <input
          type="checkbox"
          checked={whatsapp}
          disabled={busy}
          onChange={(e) => void save({ whatsappOptIn: e.target.checked })}
        />
        <span>{t("preferences.whatsapp")}</span>
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={push === "on"}
          disabled={push === "busy" || push === "unsupported" || push === "denied"}
          onChange={(e) => void togglePush(e.target.checked)}
        />
        <span>{t("preferences.push")}</span>
      </label>
      {(push === "unsupported" || push === "denied" || push === "unanswered") && (
        <p className="auth-form__note" role="status">
          {t(PUSH_NOTES[push])}
        </p>
      )}
      {/* Issue 38: what a story costs on a metered connection; the players keep to it (lib/stream-source.ts). */}
      <fieldset className="auth-form__choice" disabled={busy}>
        <legend>{t("viewing.legend")}</legend>
        {VIEWING_MODES.map((mode) => (
          <label key={mode} className="checkbox">
            <input
              type="radio"
              name="viewing-mode"
              value={mode}
              checked={viewing === mode}
              onChange={() => void save({ viewingMode: mode })}
            />
            <span>{t(`viewing.${mode}`)}</span>
          </label>
        ))}
      </fieldset>
    </section>
  );
}
