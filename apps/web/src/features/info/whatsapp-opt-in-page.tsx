import { useState } from "react";
import { Link } from "react-router";
import { toast } from "react-toastify";
import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import "./info.css";

const OPT_IN_KEY = "whatsappOptIn";
type Choice = "yes" | "no";

function readChoice(): Choice | null {
  const v = localStorage.getItem(OPT_IN_KEY);
  return v === "yes" || v === "no" ? v : null;
}

/**
 * WhatsApp opt-in (/whatsapp-otp). The spec's buttons did nothing; here Yes and No store the choice
 * on this device (no server endpoint records it yet) and say so.
 */
export function WhatsappOptInPage() {
  const { t } = useTranslation("info");
  const [choice, setChoice] = useState<Choice | null>(readChoice);

  const choose = (value: Choice) => {
    localStorage.setItem(OPT_IN_KEY, value);
    setChoice(value);
    toast.success(value === "yes" ? t("whatsapp.savedYes") : t("whatsapp.savedNo"), { toastId: "whatsapp-choice" });
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
              onClick={() => choose("yes")}
            >
              {t("whatsapp.yes")}
            </button>
            <button
              type="button"
              className={`button ${choice === "no" ? "button--primary" : ""}`}
              aria-pressed={choice === "no"}
              onClick={() => choose("no")}
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
