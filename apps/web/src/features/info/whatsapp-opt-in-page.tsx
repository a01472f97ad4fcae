import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRequireUser } from "../../components/require-user.ts";
import { TitleBar } from "../../components/title-bar.tsx";
import { accountQuery, savePreferences, useAccount } from "../../lib/account.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import "./info.css";

type Choice = "yes" | "no";

/**
 * WhatsApp opt-in (/whatsapp-otp). The spec's buttons did nothing; here Yes and No are stored on the
 * server with the time they were given, and the message says what is stored — never more.
 */
export function WhatsappOptInPage() {
  const { t } = useTranslation("info");
  useRequireUser();
  const account = useAccount();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const stored = account.data?.whatsappOptIn;
  const choice: Choice | null = stored === true ? "yes" : stored === false ? "no" : null;

  const choose = async (value: Choice) => {
    setBusy(true);
    try {
      client.setQueryData(accountQuery.queryKey, await savePreferences({ whatsappOptIn: value === "yes" }));
      toast.success(value === "yes" ? t("whatsapp.savedYes") : t("whatsapp.savedNo"), { toastId: "whatsapp-choice" });
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="screen info-screen">
      <TitleBar title={t("whatsapp.title")} backTo="/" />
      <div className="screen__body info-screen__body">
        <div className="info-card">
          <span className="info-card__icon info-card__icon--whatsapp" aria-hidden="true">
            <svg viewBox="0 0 32 32" width="40" height="40" aria-hidden="true">
              <path
                fill="#fff"
                d="M16 4a12 12 0 0 0-10.4 18l-1.6 6 6.2-1.6A12 12 0 1 0 16 4zm0 21.8a9.8 9.8 0 0 1-5-1.4l-.4-.2-3.7 1 1-3.6-.2-.4A9.8 9.8 0 1 1 16 25.8zm5.4-7.3c-.3-.1-1.8-.9-2-1s-.5-.1-.7.1-.8 1-.9 1.2-.3.2-.6.1a8 8 0 0 1-4-3.5c-.3-.5.3-.5.9-1.6.1-.2 0-.4 0-.5l-.9-2.2c-.2-.6-.5-.5-.7-.5h-.6a1.1 1.1 0 0 0-.8.4 3.4 3.4 0 0 0-1 2.5 5.9 5.9 0 0 0 1.2 3.1 13.4 13.4 0 0 0 5.2 4.5c1.9.8 2.6.9 3.6.8a3 3 0 0 0 2-1.4 2.4 2.4 0 0 0 .2-1.4c-.1-.1-.3-.2-.6-.3z"
              />
            </svg>
          </span>
          <h2 className="info-card__title">{t("whatsapp.question")}</h2>
          <div className="info-card__actions">
            <button
              type="button"
              className={`button ${choice === "yes" ? "button--primary" : ""}`}
              aria-pressed={choice === "yes"}
              disabled={busy}
              onClick={() => void choose("yes")}
            >
              {t("whatsapp.yes")}
            </button>
            <button
              type="button"
              className={`button ${choice === "no" ? "button--primary" : ""}`}
              aria-pressed={choice === "no"}
              disabled={busy}
              onClick={() => void choose("no")}
            >
              {t("whatsapp.no")}
            </button>
          </div>
          <p className="info-card__note" aria-live="polite">
            {choice === "yes" ? t("whatsapp.savedYes") : choice === "no" ? t("whatsapp.savedNo") : t("whatsapp.note")}
          </p>
          <Link to="/">{t("common.goToStories")}</Link>
        </div>
      </div>
    </main>
  );
}
