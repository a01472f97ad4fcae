import { useEffect, useId, useMemo, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { type Language, useLanguage, useTranslation } from "../../lib/i18n.ts";
import { type PushState, type PushTarget, pushState, savePushAgain, turnPushOff, turnPushOn } from "../../lib/push.ts";
import { toast } from "../../lib/toast.tsx";
import { consoleApi } from "../api.ts";

/** Which operator turned push on in this browser: the browser's one subscription may be a family account's too. */
const OWNER_KEY = "hikaya.console.push";

/** The console's target: the server keeps it as this operator's, worded in the console's language. */
const operatorTarget = (language: Language): PushTarget => ({
  save: (subscription) => consoleApi("/admin/push/subscription", { body: { ...subscription, language } }),
  forget: async (endpoint) => {
    if (endpoint) await consoleApi("/admin/push/unsubscribe", { body: { endpoint } });
  },
});

const NOTES = { denied: "devicePush.denied", unanswered: "devicePush.unanswered" } as const;

/**
 * "Notify me on this device", in the operator's own menu: a family's message reaches this browser as a push while no
 * console of theirs is open (the server knows which are, on every replica). The switch reads this browser's
 * subscription and whose it is; while on, it gives the server the subscription again whenever the console's language
 * changes, so the pushes are worded in it.
 */
export function DevicePushSwitch({ me }: { me: string }) {
  const { t } = useTranslation("admin");
  const language = useLanguage();
  const target = useMemo(() => operatorTarget(language), [language]);
  const id = useId();
  const [state, setState] = useState<PushState | "busy">("busy");

  useEffect(() => {
    let live = true;
    void (async () => {
      const browser = await pushState();
      const mine = localStorage.getItem(OWNER_KEY) === me;
      const next = browser === "on" ? (mine ? await savePushAgain(target) : "off") : browser;
      if (live) setState(next);
    })().catch(() => {
      if (live) setState("off");
    });
    return () => {
      live = false;
    };
  }, [me, target]);

  const toggle = async (on: boolean) => {
    setState("busy");
    try {
      const next = on ? await turnPushOn(target) : await turnPushOff(target);
      if (next === "on") localStorage.setItem(OWNER_KEY, me);
      else localStorage.removeItem(OWNER_KEY);
      setState(next);
    } catch (error) {
      toast.error(errorText(error));
      setState("off");
    }
  };

  // Nothing to offer where the browser has no push at all.
  if (state === "unsupported") return null;
  const note = state === "denied" || state === "unanswered" ? NOTES[state] : null;
  return (
    <div className="admin-nav__push">
      <label className="admin-nav__push-label" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={state === "on"}
          disabled={state === "busy" || state === "denied"}
          aria-describedby={note ? `${id}-hint ${id}-note` : `${id}-hint`}
          onChange={(e) => void toggle(e.target.checked)}
        />
        <span>{t("devicePush.label")}</span>
      </label>
      <p id={`${id}-hint`} className="admin-nav__push-hint">
        {t("devicePush.hint")}
      </p>
      {/* Beside the box and read with it; not a live region: the menu's status is its name form's. */}
      {note && (
        <p id={`${id}-note`} className="admin-nav__push-hint">
          {t(note)}
        </p>
      )}
    </div>
  );
}
